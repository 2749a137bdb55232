import { useStackApp } from "@vestibule/react";
import { Link } from "@vestibule/ui";
import { AuthCard } from "../layout.tsx";

/** An address that is not a page; `noSignIn` when there is no sign-in page to offer (an unknown project). */
export default function NotFound({ noSignIn }: { noSignIn?: boolean }) {
  const app = useStackApp();
  return (
    <AuthCard title="Page not found" subtitle="This address is not one of the sign-in pages.">
      {noSignIn ? null : (
        <Link className="vs-btn vs-btn-primary vs-btn-block" href={app.urls.signIn}>
          Go to sign in
        </Link>
      )}
    </AuthCard>
  );
}
