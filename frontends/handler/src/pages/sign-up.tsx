import { useState, type FormEvent } from "react";
import { useProject, useStackApp, useUser } from "@vestibule/react";
import { Alert, Button, ErrorAlert, Link, PasswordField, TextField, useAction, useLocation } from "@vestibule/ui";
import { AuthCard } from "../layout.tsx";
import { ExternalMethods, MagicLinkForm } from "../methods.tsx";
import { confirmationError, emailError, passwordError } from "../validation.ts";
import { withReturnTo } from "./sign-in.tsx";

export default function SignUp() {
  const app = useStackApp();
  const { search } = useLocation();
  const p = useProject();
  const user = useUser();
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [confirmation, setConfirmation] = useState("");
  const [touched, setTouched] = useState(false);
  const [signUp, state] = useAction(async () => {
    const r = await app.signUpWithCredential({ email: email.trim(), password });
    if (r.status === "error") throw r.error;
  });
  const signInLink = (
    <>
      Already have an account? <Link href={withReturnTo(app.urls.signIn, search)}>Sign in</Link>
    </>
  );
  if (!p.config.signUpEnabled) {
    return (
      <AuthCard title="Create an account" subtitle={signInLink}>
        <Alert kind="warning">New accounts cannot be created for {p.displayName} at the moment.</Alert>
      </AuthCard>
    );
  }
  if (user) {
    return (
      <AuthCard title="You are signed in" subtitle={`as ${user.primaryEmail ?? "a user"}`}>
        <Link className="vs-btn vs-btn-primary vs-btn-block" href={app.urls.afterSignUp}>
          Continue
        </Link>
      </AuthCard>
    );
  }
  const problems = touched
    ? { email: emailError(email), password: passwordError(password), confirmation: confirmationError(password, confirmation) }
    : { email: null, password: null, confirmation: null };
  return (
    <AuthCard title={`Create your ${p.displayName} account`} subtitle={signInLink}>
      <ExternalMethods app={app} project={p} mode="sign-up" />
      {p.config.credentialEnabled ? (
        <form
          className="vs-stack"
          noValidate
          aria-label="Sign up with password"
          onSubmit={(e: FormEvent) => {
            e.preventDefault();
            setTouched(true);
            // A new attempt: the previous answer (e.g. "Password too short") no longer applies.
            state.reset();
            if (!emailError(email) && !passwordError(password) && !confirmationError(password, confirmation)) void signUp();
          }}
        >
          <TextField label="E-mail" type="email" autoComplete="email" value={email} onChange={setEmail} error={problems.email} required />
          <PasswordField label="Password" autoComplete="new-password" value={password} onChange={setPassword} error={problems.password} maxLength={70} required />
          <PasswordField label="Repeat password" autoComplete="new-password" value={confirmation} onChange={setConfirmation} error={problems.confirmation} maxLength={70} required />
          <ErrorAlert error={state.error} />
          <Button type="submit" variant="primary" block loading={state.pending}>
            Sign up
          </Button>
        </form>
      ) : p.config.magicLinkEnabled ? (
        <MagicLinkForm app={app} submitLabel="Send sign-up code" />
      ) : null}
    </AuthCard>
  );
}
