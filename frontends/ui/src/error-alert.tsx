/**
 * The one way pages show a failure: `<ErrorAlert error={…} />` renders the plain sentence for whoever reads it (the
 * dashboard shell wraps everything in `<ErrorAudienceProvider audience={ADMIN_AUDIENCE}>`; hosted pages use the
 * end-user default) and, for a rate limit, counts the seconds down until trying again makes sense.
 */
import { createContext, useContext, useEffect, useState, type ReactNode } from "react";
import { Alert } from "./components.tsx";
import { errorMessage, retryAfterSeconds } from "./errors.ts";
import { rateLimitSentence, type ErrorAudience } from "./plain-errors.ts";

const AudienceContext = createContext<ErrorAudience>("end-user");

export function ErrorAudienceProvider({ audience, children }: { audience: ErrorAudience; children: ReactNode }) {
  return <AudienceContext.Provider value={audience}>{children}</AudienceContext.Provider>;
}

/** The reader of error sentences here (ADMIN_AUDIENCE inside the dashboard). */
export function useErrorAudience(): ErrorAudience {
  return useContext(AudienceContext);
}

/** Seconds left of a rate limit, ticking down once a second; 0 when over (or when the error is no rate limit). */
export function useRetryCountdown(error: unknown): number {
  const total = retryAfterSeconds(error);
  const [left, setLeft] = useState(total ?? 0);
  useEffect(() => {
    if (total === undefined || total <= 0) {
      setLeft(0);
      return;
    }
    const until = Date.now() + total * 1000;
    setLeft(total);
    const timer = setInterval(() => {
      const remaining = Math.max(0, Math.ceil((until - Date.now()) / 1000));
      setLeft(remaining);
      if (remaining === 0) clearInterval(timer);
    }, 250);
    return () => clearInterval(timer);
  }, [error, total]);
  return left;
}

/** The sentence of an error for this reader, with a live countdown for a rate limit; nothing without an error. */
export function ErrorAlert({ error }: { error: unknown }) {
  const audience = useErrorAudience();
  const countdown = useRetryCountdown(error);
  if (error === null || error === undefined) return null;
  if (retryAfterSeconds(error) !== undefined) {
    return (
      <Alert kind="warning">
        <span data-testid="rate-limit-countdown">{countdown > 0 ? rateLimitSentence(countdown) : "You can try again now."}</span>
      </Alert>
    );
  }
  return <Alert kind="error">{errorMessage(error, audience)}</Alert>;
}
