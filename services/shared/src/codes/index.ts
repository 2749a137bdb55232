/**
 * The contract's one-time codes (endpoints.md §1.9), shared by every service that issues them (auth: password reset,
 * e-mail verification, magic links, MFA attempts; teams-permissions: invitations): 45 characters of the lower-case
 * Crockford alphabet, compared case-insensitively; the last 39 characters are the code's "nonce" (an OTP e-mail shows
 * only the first 6), and every attempt counts against all codes sharing them. Check order once a code is found:
 * expired, used, too many attempts. Pure functions, no I/O.
 */
import { knownError, type KnownError } from "../errors/index.ts";

export const CODE_LENGTH = 45;
export const CODE_TAIL_LENGTH = 39;
export const MAX_CODE_ATTEMPTS = 20;
/** Default lifetime of a code: 7 days. */
export const DEFAULT_CODE_LIFETIME_MS = 7 * 24 * 3600 * 1000;

const CODE = /^[0-9abcdefghjkmnpqrstvwxyz]{45}$/;

/** The canonical (lower-case) code, or undefined when the input cannot be a code (then: VERIFICATION_CODE_NOT_FOUND). */
export function normalizeCode(input: string): string | undefined {
  const code = input.trim().toLowerCase();
  return CODE.test(code) ? code : undefined;
}

/** The last 39 characters: shared by an OTP's variants (the e-mailed code and "OTP + nonce"). */
export function codeTail(code: string): string {
  return code.slice(-CODE_TAIL_LENGTH);
}

export interface CodeFacts {
  readonly expiresAt: Date;
  readonly usedAt: Date | null;
  /** Attempts counted so far, this one included. */
  readonly attempts: number;
}

/** Why a found code cannot be used now (contract order: expired, used, max attempts), or null. */
export function codeProblem(
  code: CodeFacts,
  now: Date,
): KnownError<"VERIFICATION_CODE_EXPIRED" | "VERIFICATION_CODE_ALREADY_USED" | "VERIFICATION_CODE_MAX_ATTEMPTS_REACHED"> | null {
  if (code.expiresAt.getTime() <= now.getTime()) return knownError("VERIFICATION_CODE_EXPIRED");
  if (code.usedAt) return knownError("VERIFICATION_CODE_ALREADY_USED");
  if (code.attempts >= MAX_CODE_ATTEMPTS) return knownError("VERIFICATION_CODE_MAX_ATTEMPTS_REACHED");
  return null;
}

/** `callbackUrl` with `code=<code>` added to its query (an existing `code` parameter is replaced). */
export function linkWithCode(callbackUrl: string, code: string): string {
  const url = new URL(callbackUrl);
  url.searchParams.set("code", code);
  return url.toString();
}
