/**
 * The OAuth callback page's body: completes the sign-in once (code and state are read from the address and removed),
 * then the app redirects. Failures are reported by the app with the spec's alerts ('Invalid TOTP code. Please try
 * signing in again.' / 'Error signing in during OAuth callback. Please try again.').
 */
import { useEffect, useRef, useState, type ReactNode } from "react";
import { useStackApp } from "./provider.tsx";

export function OAuthCallback({ fallback = null, onDone }: { fallback?: ReactNode; onDone?: (signedIn: boolean) => void }) {
  const app = useStackApp();
  const started = useRef(false);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    if (started.current) return;
    started.current = true;
    app.callOAuthCallback().then((ok) => onDone?.(ok), setError);
  }, [app, onDone]);
  if (error) throw error;
  return <>{fallback}</>;
}
