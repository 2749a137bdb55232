/**
 * Invitation codes follow the contract's verification-code rules (endpoints.md §1.9), the same rules the auth
 * service applies to its codes: 45 characters of the lower-case Crockford alphabet, compared case-insensitively and
 * stored only as SHA-256; the last 39 characters are the code's nonce, and every attempt counts against all codes of
 * the project sharing it; checked in the order not found, expired, already used, too many attempts (20).
 *
 * Why a table of our own rather than the auth service's code store over RPC: accepting an invitation must use the
 * code and add the membership (with its default grants and events) atomically. In one transaction here a code is used
 * exactly once and never without its membership; across two services a failure between "use the code" and "add the
 * member" would either lose the invitation or let a code work twice.
 *
 * Pure functions, no I/O.
 */
import { knownError, type KnownError } from "@vestibule/shared/errors";

export const CODE_TAIL_LENGTH = 39;
export const MAX_CODE_ATTEMPTS = 20;
/** Lifetime of an invitation: 7 days (the contract's default code lifetime). */
export const INVITATION_LIFETIME_MS = 7 * 24 * 3600 * 1000;

const CODE = /^[0-9abcdefghjkmnpqrstvwxyz]{45}$/;

/** The canonical (lower-case) code, or undefined when the input cannot be a code (VERIFICATION_CODE_NOT_FOUND). */
export function normalizeCode(input: string): string | undefined {
  const code = input.trim().toLowerCase();
  return CODE.test(code) ? code : undefined;
}

/** The last 39 characters (the nonce attempts count against). */
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

/** `callbackUrl` with `code=<code>` in its query (an existing `code` parameter is replaced). */
export function linkWithCode(callbackUrl: string, code: string): string {
  const url = new URL(callbackUrl);
  url.searchParams.set("code", code);
  return url.toString();
}
