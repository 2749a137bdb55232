import { useState, type FormEvent } from "react";
import { useStackApp } from "@vestibule/react";
import { Alert, Button, ErrorAlert, Link, TextField, useAction } from "@vestibule/ui";
import { AuthCard } from "../layout.tsx";
import { emailError } from "../validation.ts";

export default function ForgotPassword() {
  const app = useStackApp();
  const [email, setEmail] = useState("");
  const [touched, setTouched] = useState(false);
  const [sent, setSent] = useState(false);
  const [send, state] = useAction(async () => {
    const r = await app.sendForgotPasswordEmail(email.trim());
    if (r.status === "error") throw r.error;
    setSent(true);
  });
  return (
    <AuthCard title="Reset your password" subtitle={<Link href={app.urls.signIn}>Back to sign in</Link>}>
      {sent ? (
        <Alert kind="success">If an account with {email.trim()} exists, we sent it a link to choose a new password.</Alert>
      ) : (
        <form
          className="vs-stack"
          noValidate
          onSubmit={(e: FormEvent) => {
            e.preventDefault();
            setTouched(true);
            if (!emailError(email)) void send();
          }}
        >
          <TextField label="E-mail" type="email" autoComplete="email" value={email} onChange={setEmail} error={touched ? emailError(email) : null} required />
          <ErrorAlert error={state.error} />
          <Button type="submit" variant="primary" block loading={state.pending}>
            Send reset link
          </Button>
        </form>
      )}
    </AuthCard>
  );
}
