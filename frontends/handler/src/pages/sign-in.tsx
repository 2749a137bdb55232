import { useState, type FormEvent } from "react";
import { AFTER_AUTH_RETURN_TO_PARAM, safeReturnTo } from "@vestibule/js";
import { useProject, useStackApp, useUser } from "@vestibule/react";
import { Alert, Button, ErrorAlert, Link, PasswordField, TabList, TextField, tabPanelProps, useAction, useLocation } from "@vestibule/ui";
import { AuthCard } from "../layout.tsx";
import { ExternalMethods, MagicLinkForm } from "../methods.tsx";
import { emailError, passwordError } from "../validation.ts";

/**
 * Where the signed-in page's "Continue" goes: `after_auth_return_to` when it is a path on this page's origin (never
 * another host: an open redirect, issue 18), else the app's after-sign-in URL.
 */
export function continueHref(search: URLSearchParams, currentHref: string | null, afterSignIn: string): string {
  return safeReturnTo(search.get(AFTER_AUTH_RETURN_TO_PARAM), currentHref) ?? afterSignIn;
}

/** Keeps `after_auth_return_to` on links between the sign-in and sign-up pages (spec §2). */
export function withReturnTo(href: string, search: URLSearchParams): string {
  const back = search.get(AFTER_AUTH_RETURN_TO_PARAM);
  return back ? `${href}?${AFTER_AUTH_RETURN_TO_PARAM}=${encodeURIComponent(back)}` : href;
}

export default function SignIn() {
  const app = useStackApp();
  const { search } = useLocation();
  const p = useProject();
  const user = useUser();
  const [method, setMethod] = useState<"password" | "code">("password");
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [touched, setTouched] = useState(false);
  const [signIn, state] = useAction(async () => {
    const r = await app.signInWithCredential({ email: email.trim(), password });
    if (r.status === "error") throw r.error;
  });

  if (user) {
    return (
      <AuthCard title="You are signed in" subtitle={`as ${user.primaryEmail ?? user.displayName ?? "a user"}`}>
        <Link className="vs-btn vs-btn-primary vs-btn-block" href={continueHref(search, typeof window === "undefined" ? null : window.location.href, app.urls.afterSignIn)}>
          Continue
        </Link>
        <Link className="vs-btn vs-btn-block" href={app.urls.signOut}>
          Sign out
        </Link>
      </AuthCard>
    );
  }
  const both = p.config.credentialEnabled && p.config.magicLinkEnabled;
  const showPassword = p.config.credentialEnabled && (!both || method === "password");
  const showCode = p.config.magicLinkEnabled && (!both || method === "code");
  const problems = { email: touched ? emailError(email) : null, password: touched ? passwordError(password) : null };
  return (
    <AuthCard
      title={`Sign in to ${p.displayName}`}
      subtitle={
        p.config.signUpEnabled ? (
          <>
            Don&apos;t have an account? <Link href={withReturnTo(app.urls.signUp, search)}>Sign up</Link>
          </>
        ) : undefined
      }
    >
      <ExternalMethods app={app} project={p} mode="sign-in" />
      {both ? (
        <TabList
          label="Sign-in method"
          idPrefix="sign-in"
          active={method}
          onSelect={(id) => setMethod(id as "password" | "code")}
          tabs={[
            { id: "password", title: "Password" },
            { id: "code", title: "E-mail code" },
          ]}
        />
      ) : null}
      {showPassword ? (
        <div {...(both ? tabPanelProps("sign-in", "password", "Sign in with a password") : {})}>
          <form
            className="vs-stack"
            noValidate
            aria-label="Sign in with password"
            onSubmit={(e: FormEvent) => {
              e.preventDefault();
              setTouched(true);
              if (!emailError(email) && !passwordError(password)) void signIn();
            }}
          >
            <TextField label="E-mail" type="email" autoComplete="email" value={email} onChange={setEmail} error={problems.email} required />
            <PasswordField label="Password" autoComplete="current-password" value={password} onChange={setPassword} error={problems.password} required />
            <div style={{ textAlign: "right", marginTop: -8 }}>
              <Link href={app.urls.forgotPassword}>Forgot password?</Link>
            </div>
            <ErrorAlert error={state.error} />
            <Button type="submit" variant="primary" block loading={state.pending}>
              Sign in
            </Button>
          </form>
        </div>
      ) : null}
      {showCode ? (
        <div {...(both ? tabPanelProps("sign-in", "code", "Sign in with a code sent by e-mail") : {})}>
          <MagicLinkForm app={app} submitLabel="Send sign-in code" />
        </div>
      ) : null}
      {!p.config.credentialEnabled && !p.config.magicLinkEnabled && p.config.oauthProviders.length === 0 && !p.config.passkeyEnabled ? (
        <Alert kind="warning">This project has no sign-in method enabled.</Alert>
      ) : null}
    </AuthCard>
  );
}
