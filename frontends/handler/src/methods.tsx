/**
 * The sign-in methods a project enables, in the order people expect: OAuth providers, passkey, then e-mail (password
 * or a one-time code). Only what `GET /projects/current` says is enabled is offered.
 */
import { useState, type FormEvent } from "react";
import type { Project, StackClientApp } from "@vestibule/js";
import { Alert, Button, ErrorAlert, TextField, useAction } from "@vestibule/ui";
import { emailError } from "./validation.ts";

const PROVIDER_NAMES: Record<string, string> = {
  google: "Google",
  github: "GitHub",
  microsoft: "Microsoft",
  spotify: "Spotify",
  facebook: "Facebook",
  discord: "Discord",
  gitlab: "GitLab",
  bitbucket: "Bitbucket",
  linkedin: "LinkedIn",
  apple: "Apple",
  x: "X",
  twitch: "Twitch",
};

export const providerName = (id: string): string => PROVIDER_NAMES[id] ?? id.charAt(0).toUpperCase() + id.slice(1);

/** OAuth and passkey buttons; nothing when the project enables neither. */
export function ExternalMethods({ app, project, mode }: { app: StackClientApp; project: Project; mode: "sign-in" | "sign-up" }) {
  const [oauth, oauthState] = useAction((provider: string) => app.signInWithOAuth(provider));
  const [passkey, passkeyState] = useAction(async () => {
    const r = await app.signInWithPasskey();
    if (r.status === "error") throw r.error;
  });
  const providers = project.config.oauthProviders;
  const showPasskey = project.config.passkeyEnabled && mode === "sign-in";
  if (providers.length === 0 && !showPasskey) return null;
  return (
    <div className="vs-stack" style={{ gap: 8 }}>
      {providers.map((p) => (
        <Button key={p.id} block onClick={() => void oauth(p.id)} loading={oauthState.pending} data-provider={p.id}>
          Continue with {providerName(p.id)}
        </Button>
      ))}
      {showPasskey ? (
        <Button block onClick={() => void passkey()} loading={passkeyState.pending}>
          Sign in with a passkey
        </Button>
      ) : null}
      <ErrorAlert error={oauthState.error ?? passkeyState.error} />
      {project.config.credentialEnabled || project.config.magicLinkEnabled ? <div className="vs-divider">or continue with e-mail</div> : null}
    </div>
  );
}

/**
 * Magic link / one-time code: sends the e-mail, then asks for the 6-character code it shows (the link in the e-mail
 * signs in too). The code typed here is the OTP lower-cased followed by the nonce the send call returned.
 */
export function MagicLinkForm({ app, submitLabel }: { app: StackClientApp; submitLabel: string }) {
  const [email, setEmail] = useState("");
  const [touched, setTouched] = useState(false);
  const [nonce, setNonce] = useState<string | null>(null);
  const [otp, setOtp] = useState("");
  const [send, sendState] = useAction(async () => {
    const r = await app.sendMagicLinkEmail(email.trim());
    if (r.status === "error") throw r.error;
    setNonce(r.data.nonce);
  });
  const [verify, verifyState] = useAction(async () => {
    const r = await app.signInWithMagicLink(otp.trim().toLowerCase() + nonce);
    if (r.status === "error") throw r.error;
  });
  const emailProblem = touched ? emailError(email) : null;
  if (nonce) {
    return (
      <form
        className="vs-stack"
        noValidate
        onSubmit={(e: FormEvent) => {
          e.preventDefault();
          if (otp.trim().length === 6) void verify();
        }}
      >
        <Alert kind="success">We sent a sign-in link and code to {email.trim()}. Open the link, or type the code here.</Alert>
        <TextField
          label="Code from the e-mail"
          value={otp}
          onChange={(v) => setOtp(v.toUpperCase())}
          autoComplete="one-time-code"
          inputMode="text"
          maxLength={6}
          autoFocus
          hint="6 characters"
        />
        <ErrorAlert error={verifyState.error} />
        <Button type="submit" variant="primary" block loading={verifyState.pending} disabled={otp.trim().length !== 6}>
          Sign in
        </Button>
        <Button variant="ghost" onClick={() => setNonce(null)}>
          Use another e-mail
        </Button>
      </form>
    );
  }
  return (
    <form
      className="vs-stack"
      noValidate
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        setTouched(true);
        if (!emailError(email)) void send();
      }}
    >
      <TextField label="E-mail" type="email" autoComplete="email" value={email} onChange={setEmail} onBlur={() => setTouched(true)} error={emailProblem} required />
      <ErrorAlert error={sendState.error} />
      <Button type="submit" variant="primary" block loading={sendState.pending}>
        {submitLabel}
      </Button>
    </form>
  );
}
