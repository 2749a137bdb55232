/**
 * TOTP multi-factor rules (RFC 6238 as the contract fixes it: SHA-1, 6 digits, 30-second steps; a window of one step
 * either side for clock drift). Pure functions, no I/O.
 */
import { statusError } from "@vestibule/shared/errors";

export const TOTP_STEP_SECONDS = 30;
export const TOTP_DIGITS = 6;
/** Secrets shorter than 128 bits are too weak to keep out guessers (RFC 4226 §4); longer than 512 bits is no use. */
export const TOTP_MIN_SECRET_BYTES = 16;
export const TOTP_MAX_SECRET_BYTES = 64;
/** MFA attempt codes live 5 minutes (contract tokens.md §5). */
export const MFA_ATTEMPT_LIFETIME_MS = 5 * 60_000;

/** The 30-second step a moment falls in. */
export function totpStep(nowMillis: number): number {
  return Math.floor(nowMillis / 1000 / TOTP_STEP_SECONDS);
}

/** A token has the contract's shape: exactly six digits. */
export function isTotpToken(token: string): boolean {
  return /^\d{6}$/.test(token);
}

/** Refuses secrets an authenticator cannot use safely (400 with the reason). */
export function assertTotpSecret(secret: Uint8Array): void {
  if (secret.length < TOTP_MIN_SECRET_BYTES || secret.length > TOTP_MAX_SECRET_BYTES) {
    throw statusError(400, `totp_secret_base64 must decode to ${TOTP_MIN_SECRET_BYTES} to ${TOTP_MAX_SECRET_BYTES} bytes; got ${secret.length}.`);
  }
}
