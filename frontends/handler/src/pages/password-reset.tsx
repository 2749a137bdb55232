import { useEffect, useState, type FormEvent } from "react";
import { useStackApp } from "@vestibule/react";
import { Alert, Button, ErrorAlert, Link, PasswordField, Spinner, useAction } from "@vestibule/ui";
import { AuthCard } from "../layout.tsx";
import { once, useQueryCode } from "../one-time.ts";
import { confirmationError, passwordError } from "../validation.ts";

/** Opened from the reset e-mail: checks `?code=` first, then sets the new password. */
export default function PasswordReset() {
  const app = useStackApp();
  const code = useQueryCode("code", { remove: true });
  const [check, setCheck] = useState<"pending" | "ok" | unknown>("pending");
  const [password, setPassword] = useState("");
  const [confirmation, setConfirmation] = useState("");
  const [touched, setTouched] = useState(false);
  const [done, setDone] = useState(false);
  const [reset, state] = useAction(async () => {
    const r = await app.resetPassword({ code: code!, password });
    if (r.status === "error") throw r.error;
    setDone(true);
  });
  useEffect(() => {
    if (!code) return;
    once(`reset-check:${code}`, () => app.verifyPasswordResetCode(code)).then(
      (r) => setCheck(r.status === "ok" ? "ok" : r.error),
      (err: unknown) => setCheck(err),
    );
  }, [app, code]);
  if (!code) {
    return (
      <AuthCard title="Choose a new password">
        <Alert kind="error">This link has no reset code. Open the link from the e-mail again.</Alert>
        <Link href={app.urls.forgotPassword}>Request a new link</Link>
      </AuthCard>
    );
  }
  if (done) {
    return (
      <AuthCard title="Password changed">
        <Alert kind="success">Your password was changed. Sign in with the new one.</Alert>
        <Link className="vs-btn vs-btn-primary vs-btn-block" href={app.urls.signIn}>
          Sign in
        </Link>
      </AuthCard>
    );
  }
  return (
    <AuthCard title="Choose a new password">
      {check === "pending" ? <Spinner label="Checking the link" /> : null}
      {check !== "pending" && check !== "ok" ? (
        <>
          <ErrorAlert error={check} />
          <Link href={app.urls.forgotPassword}>Request a new link</Link>
        </>
      ) : null}
      {check === "ok" ? (
        <form
          className="vs-stack"
          noValidate
          onSubmit={(e: FormEvent) => {
            e.preventDefault();
            setTouched(true);
            if (!passwordError(password) && !confirmationError(password, confirmation)) void reset();
          }}
        >
          <PasswordField label="New password" autoComplete="new-password" value={password} onChange={setPassword} error={touched ? passwordError(password) : null} maxLength={70} />
          <PasswordField label="Repeat new password" autoComplete="new-password" value={confirmation} onChange={setConfirmation} error={touched ? confirmationError(password, confirmation) : null} maxLength={70} />
          <ErrorAlert error={state.error} />
          <Button type="submit" variant="primary" block loading={state.pending}>
            Change password
          </Button>
        </form>
      ) : null}
    </AuthCard>
  );
}
