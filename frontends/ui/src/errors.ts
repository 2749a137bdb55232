/**
 * Turning anything thrown by the SDK into the sentence a person should read: a known error's plain sentence for the
 * reader (plain-errors.ts: validation failures, admin wording) or its own message (the contract's text), a rate limit
 * as "try again in N s", a plain-text status error's sentence, the SDK's offline/network messages, else a generic text.
 */
import { KnownError, StatusError } from "@vestibule/js";
import { knownErrorSentence, statusSentence, type ErrorAudience } from "./plain-errors.ts";

export const UNHANDLED_ERROR_MESSAGE = "An unhandled error occurred. Please report this to the developer.";

export function errorMessage(err: unknown, audience: ErrorAudience = "end-user"): string {
  if (err instanceof KnownError) {
    return knownErrorSentence(err.errorCode, err.humanReadableMessage || err.message, err.details, audience) ?? (err.humanReadableMessage || err.message);
  }
  if (err instanceof StatusError) return statusSentence(err.statusCode, err.message || `Request failed with status ${err.statusCode}`, err.retryAfterSeconds);
  if (err instanceof Error && err.name === "NetworkError") return err.message;
  if (typeof err === "object" && err !== null && "errorMessage" in err) return String((err as { errorMessage: unknown }).errorMessage);
  if (err instanceof Error && err.message) return err.message;
  return UNHANDLED_ERROR_MESSAGE;
}

/** The known-error code, if any (for tests and branching in pages). */
export function errorCode(err: unknown): string | undefined {
  return err instanceof KnownError ? err.errorCode : undefined;
}

/** Seconds a rate-limited request asked to wait (a 429 the SDK did not wait out), else undefined. */
export function retryAfterSeconds(err: unknown): number | undefined {
  return err instanceof StatusError && err.statusCode === 429 ? (err.retryAfterSeconds ?? 0) : undefined;
}

/**
 * The longest 429 wait the frontends' SDK apps sit out silently; longer ones show "Too many attempts, try again in
 * N s" with a countdown (issue 21 item 6) instead of a spinner that seems stuck.
 */
export const INTERACTIVE_RATE_LIMIT_WAIT_MS = 2_000;
