import { useState, type FormEvent } from "react";
import { useStackApp } from "@vestibule/react";
import { Alert, Button, ErrorAlert, Link, TextField, useAction } from "@vestibule/ui";
import { AuthCard } from "../layout.tsx";

/** Second step of a sign-in with two-factor authentication: the 6-digit code of the authenticator app. */
export default function Mfa() {
  const app = useStackApp();
  const [attemptCode] = useState(() => app.getMfaAttemptCode());
  const [otp, setOtp] = useState("");
  const [verify, state] = useAction(async () => {
    const r = await app.signInWithMfa(otp.trim(), attemptCode!);
    if (r.status === "error") throw r.error;
  });
  if (!attemptCode) {
    return (
      <AuthCard title="Two-factor authentication">
        <Alert kind="error">Your sign-in attempt has expired. Please sign in again.</Alert>
        <Link className="vs-btn vs-btn-primary vs-btn-block" href={app.urls.signIn}>
          Sign in
        </Link>
      </AuthCard>
    );
  }
  const valid = /^\d{6}$/.test(otp.trim());
  return (
    <AuthCard title="Two-factor authentication" subtitle="Enter the 6-digit code from your authenticator app.">
      <form
        className="vs-stack"
        noValidate
        onSubmit={(e: FormEvent) => {
          e.preventDefault();
          if (valid) void verify();
        }}
      >
        <TextField label="Authentication code" value={otp} onChange={(v) => setOtp(v.replace(/\D/g, "").slice(0, 6))} inputMode="numeric" autoComplete="one-time-code" autoFocus />
        <ErrorAlert error={state.error} />
        <Button type="submit" variant="primary" block loading={state.pending} disabled={!valid}>
          Verify
        </Button>
      </form>
    </AuthCard>
  );
}
