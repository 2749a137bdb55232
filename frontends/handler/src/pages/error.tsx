import { KnownError } from "@vestibule/js";
import { useStackApp } from "@vestibule/react";
import { Alert, Link, useLocation } from "@vestibule/ui";
import { AuthCard } from "../layout.tsx";

/**
 * Where flows that cannot go on land (e.g. an OAuth provider error): `?errorCode=&message=&details=` describe it; a
 * known code shows its catalogue message.
 */
export default function ErrorPage() {
  const app = useStackApp();
  const { search } = useLocation();
  const code = search.get("errorCode") ?? search.get("error_code");
  const message = search.get("message") ?? search.get("error_description");
  let text = message ?? "Something went wrong.";
  if (code && !message) {
    try {
      text = KnownError.fromJson({ code }).humanReadableMessage;
    } catch {
      /* keep the generic text */
    }
  }
  return (
    <AuthCard title="Something went wrong">
      <Alert kind="error">
        {text}
        {code ? <span className="vs-hint" style={{ display: "block" }}>Error code: {code}</span> : null}
      </Alert>
      <Link className="vs-btn vs-btn-primary vs-btn-block" href={app.urls.signIn}>
        Back to sign in
      </Link>
    </AuthCard>
  );
}
