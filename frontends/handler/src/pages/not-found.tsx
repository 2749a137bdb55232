import { useStackApp } from "@vestibule/react";
import { Link } from "@vestibule/ui";
import { AuthCard } from "../layout.tsx";

export default function NotFound() {
  const app = useStackApp();
  return (
    <AuthCard title="Page not found" subtitle="This address is not one of the sign-in pages.">
      <Link className="vs-btn vs-btn-primary vs-btn-block" href={app.urls.signIn}>
        Go to sign in
      </Link>
    </AuthCard>
  );
}
