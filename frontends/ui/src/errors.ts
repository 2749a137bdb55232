/**
 * Turning anything thrown by the SDK into the message a person should read: a known error's own message (the
 * contract's text), a plain-text status error's body, the SDK's offline/network messages, else a generic text.
 */
import { KnownError, StatusError } from "@vestibule/js";

export const UNHANDLED_ERROR_MESSAGE = "An unhandled error occurred. Please report this to the developer.";

export function errorMessage(err: unknown): string {
  if (err instanceof KnownError) return err.humanReadableMessage || err.message;
  if (err instanceof StatusError) return err.message || `Request failed with status ${err.statusCode}`;
  if (err instanceof Error && err.name === "NetworkError") return err.message;
  if (typeof err === "object" && err !== null && "errorMessage" in err) return String((err as { errorMessage: unknown }).errorMessage);
  if (err instanceof Error && err.message) return err.message;
  return UNHANDLED_ERROR_MESSAGE;
}

/** The known-error code, if any (for tests and branching in pages). */
export function errorCode(err: unknown): string | undefined {
  return err instanceof KnownError ? err.errorCode : undefined;
}
