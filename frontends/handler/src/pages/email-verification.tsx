import { useEffect, useState } from "react";
import { useStackApp } from "@vestibule/react";
import { Alert, ErrorAlert, Link, Spinner } from "@vestibule/ui";
import { AuthCard } from "../layout.tsx";
import { once, useQueryCode } from "../one-time.ts";

/** Opened from the verification e-mail: `?code=` verifies the address (the code is removed from the address bar). */
export default function EmailVerification() {
  const app = useStackApp();
  const code = useQueryCode("code", { remove: true });
  const [state, setState] = useState<{ status: "pending" } | { status: "ok" } | { status: "error"; error: unknown }>({ status: "pending" });
  useEffect(() => {
    if (!code) return;
    once(`verify:${code}`, () => app.verifyEmail(code)).then(
      (r) => setState(r.status === "ok" ? { status: "ok" } : { status: "error", error: r.error }),
      (error: unknown) => setState({ status: "error", error }),
    );
  }, [app, code]);
  if (!code) {
    return (
      <AuthCard title="Verify your e-mail">
        <Alert kind="error">This link has no verification code. Open the link from the e-mail again.</Alert>
      </AuthCard>
    );
  }
  return (
    <AuthCard title="Verify your e-mail">
      {state.status === "pending" ? <Spinner label="Verifying your e-mail address" /> : null}
      {state.status === "ok" ? <Alert kind="success">Your e-mail address is verified.</Alert> : null}
      {state.status === "error" ? <ErrorAlert error={state.error} /> : null}
      {state.status !== "pending" ? (
        <Link className="vs-btn vs-btn-primary vs-btn-block" href={app.urls.home}>
          Continue
        </Link>
      ) : null}
    </AuthCard>
  );
}
