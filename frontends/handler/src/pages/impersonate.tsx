import { useEffect, useState } from "react";
import { useStackApp } from "@vestibule/react";
import { Alert, ErrorAlert, Link, Spinner } from "@vestibule/ui";
import { AuthCard } from "../layout.tsx";
import { once, useQueryCode } from "../one-time.ts";

/**
 * Opened from the dashboard's "Open the app as <user>": `?ticket=` (single use, one minute) is removed from the
 * address, exchanged for an impersonation session of that user, and the SDK goes on to the app's after-sign-in page.
 */
export default function Impersonate() {
  const app = useStackApp();
  const ticket = useQueryCode("ticket", { remove: true });
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    if (!ticket) return;
    once(`impersonate:${ticket}`, () => app.signInWithImpersonationTicket(ticket)).catch(setError);
  }, [app, ticket]);
  return (
    <AuthCard title={!ticket || error ? "The app could not be opened as this user" : "Opening the app as this user"}>
      {!ticket ? (
        <Alert kind="error">This link has no ticket. Open the app as the user from the dashboard again.</Alert>
      ) : error ? (
        <ErrorAlert error={error} />
      ) : (
        <Spinner label="Signing in as the user" />
      )}
      {!ticket || error ? (
        <Link className="vs-btn vs-btn-block" href={app.urls.home}>
          Go to the app
        </Link>
      ) : null}
    </AuthCard>
  );
}
