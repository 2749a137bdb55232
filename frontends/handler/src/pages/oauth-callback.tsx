import { useEffect, useState } from "react";
import { useStackApp } from "@vestibule/react";
import { Alert, Link, Spinner } from "@vestibule/ui";
import { AuthCard } from "../layout.tsx";
import { once } from "../one-time.ts";

/**
 * The provider sends the browser back here with `code` and `state`: the SDK removes them from the address, reads the
 * PKCE verifier cookie, exchanges the code and redirects. Shown only when that fails.
 */
export default function OAuthCallback() {
  const app = useStackApp();
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    once("oauth-callback", () => app.callOAuthCallback()).then(
      (ok) => setFailed(!ok),
      () => setFailed(true),
    );
  }, [app]);
  return (
    <AuthCard title="Signing you in">
      {failed ? (
        <>
          <Alert kind="error">Error signing in during OAuth callback. Please try again.</Alert>
          <Link className="vs-btn vs-btn-primary vs-btn-block" href={app.urls.signIn}>
            Back to sign in
          </Link>
        </>
      ) : (
        <Spinner label="Completing the sign-in" />
      )}
    </AuthCard>
  );
}
