import { useEffect, useState, type FormEvent } from "react";
import type { CurrentUser } from "@vestibule/js";
import { Alert, Button, ErrorAlert, Skeleton, TextField, useAction } from "@vestibule/ui";
import { base32, newTotpSecret, otpauthUri, verifyTotp } from "../totp.ts";

const INVALID_CODE = "The TOTP code is invalid. Please try again.";

/** The QR code of the otpauth URI (the QR library is its own chunk, fetched only here). */
function QrCode({ text }: { text: string }) {
  const [svg, setSvg] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    void import("uqr").then(({ renderSVG }) => {
      if (live) setSvg(renderSVG(text, { border: 2 }));
    });
    return () => {
      live = false;
    };
  }, [text]);
  return (
    <div
      role="img"
      aria-label="QR code for your authenticator app"
      style={{ width: 192, height: 192, background: "#fff", borderRadius: 8, padding: 4 }}
      {...(svg ? { dangerouslySetInnerHTML: { __html: svg } } : {})}
    >
      {svg ? null : <Skeleton width={184} height={184} />}
    </div>
  );
}

export function TwoFactorSection({ user, projectName }: { user: CurrentUser; projectName: string }) {
  const [secret, setSecret] = useState<Uint8Array | null>(null);
  const [code, setCode] = useState("");
  const [codeError, setCodeError] = useState<string | null>(null);
  const [enable, enableState] = useAction(async () => {
    if (!(await verifyTotp(secret!, code.trim()))) {
      setCodeError(INVALID_CODE);
      return;
    }
    await user.update({ totpMultiFactorSecret: secret });
    setSecret(null);
    setCode("");
  });
  const [disable, disableState] = useAction(() => user.update({ totpMultiFactorSecret: null }));
  if (user.isMultiFactorRequired) {
    return (
      <div className="vs-stack">
        <h2>Two-factor authentication</h2>
        <Alert kind="success">Two-factor authentication is on. Signing in asks for a code from your authenticator app.</Alert>
        <ErrorAlert error={disableState.error} />
        <div>
          <Button variant="danger" onClick={() => void disable()} loading={disableState.pending}>
            Turn off two-factor authentication
          </Button>
        </div>
      </div>
    );
  }
  if (!secret) {
    return (
      <div className="vs-stack">
        <h2>Two-factor authentication</h2>
        <p className="vs-muted" style={{ margin: 0 }}>
          Protect your account with a code from an authenticator app (TOTP) in addition to your password.
        </p>
        <div>
          <Button variant="primary" onClick={() => setSecret(newTotpSecret())}>
            Set up two-factor authentication
          </Button>
        </div>
      </div>
    );
  }
  const uri = otpauthUri(secret, user.primaryEmail ?? user.id, projectName);
  return (
    <form
      className="vs-stack"
      noValidate
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        setCodeError(null);
        if (/^\d{6}$/.test(code.trim())) void enable();
        else setCodeError("Enter the 6-digit code.");
      }}
    >
      <h2>Set up two-factor authentication</h2>
      <ol style={{ margin: 0, paddingLeft: 20 }}>
        <li>Scan this QR code with your authenticator app, or type the key below.</li>
        <li>Enter the 6-digit code the app shows.</li>
      </ol>
      <QrCode text={uri} />
      <p style={{ margin: 0 }}>
        Key: <code className="vs-code" data-testid="totp-secret">{base32(secret)}</code>
      </p>
      <TextField label="Code from the app" value={code} onChange={(v) => setCode(v.replace(/\D/g, "").slice(0, 6))} inputMode="numeric" autoComplete="one-time-code" error={codeError} />
      <ErrorAlert error={enableState.error} />
      <div className="vs-row">
        <Button type="submit" variant="primary" loading={enableState.pending}>
          Turn on
        </Button>
        <Button onClick={() => setSecret(null)}>Cancel</Button>
      </div>
    </form>
  );
}
