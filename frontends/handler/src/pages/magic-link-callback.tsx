import { useEffect, useState } from "react";
import { useStackApp } from "@vestibule/react";
import { Alert, ErrorAlert, Link, Spinner } from "@vestibule/ui";
import { AuthCard } from "../layout.tsx";
import { once, useQueryCode } from "../one-time.ts";

/** Opened from the magic-link e-mail: `?code=` signs the visitor in, then the SDK redirects. */
export default function MagicLinkCallback() {
  const app = useStackApp();
  const code = useQueryCode("code", { remove: true });
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    if (!code) return;
    once(`magic:${code}`, () => app.signInWithMagicLink(code)).then(
      (r) => {
        if (r.status === "error") setError(r.error);
      },
      setError,
    );
  }, [app, code]);
  return (
    <AuthCard title="Signing you in">
      {!code ? <Alert kind="error">This link has no sign-in code. Open the link from the e-mail again.</Alert> : error ? <ErrorAlert error={error} /> : <Spinner label="Signing you in" />}
      {!code || error ? (
        <Link className="vs-btn vs-btn-block" href={app.urls.signIn}>
          Back to sign in
        </Link>
      ) : null}
    </AuthCard>
  );
}
