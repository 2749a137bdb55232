/**
 * User and team API key strings (contract endpoints.md §7) and the rules of a key check. Pure functions, no I/O.
 *
 * Format: `sk_` (or `pk_` for a public key) + 45 random characters + the key's UUID without dashes (32) + `user` or
 * `team` + one scanner-flag character + the marker `574ck4u7h` + the CRC32 (8 lower-case hex digits) of everything
 * before it. The fixed marker and the checksum let secret scanners recognise a leaked key without asking us, and let
 * us refuse a mistyped or forged string without a database lookup. The scanner flag is the Crockford base32 digit of
 * (1 for a self-hosted deployment, as every Vestibule deployment is) + (2 when public): "1" for secret keys, "3" for
 * public ones.
 */
import { crc32 } from "node:zlib";
import { knownError, type KnownError } from "@vestibule/shared/errors";

export type ApiKeyKind = "user" | "team";

export const API_KEY_MARKER = "574ck4u7h";
const SECRET_LENGTH = 45;
const KEY = new RegExp(`^(sk|pk)_([0-9a-z]{${SECRET_LENGTH}})([0-9a-f]{32})(user|team)([0-9a-z])(${API_KEY_MARKER})([0-9a-f]{8})$`);

function checksum(text: string): string {
  return (crc32(text) >>> 0).toString(16).padStart(8, "0");
}

function scannerFlag(isPublic: boolean): string {
  return String(1 + (isPublic ? 2 : 0));
}

/** The full key string for a key id and a fresh 45-character secret. */
export function formatApiKey(input: { id: string; kind: ApiKeyKind; isPublic: boolean; secret: string }): string {
  if (input.secret.length !== SECRET_LENGTH) throw new Error("an API key secret has 45 characters");
  const body = `${input.isPublic ? "pk" : "sk"}_${input.secret}${input.id.replace(/-/g, "").toLowerCase()}${input.kind}${scannerFlag(input.isPublic)}${API_KEY_MARKER}`;
  return body + checksum(body);
}

export interface ParsedApiKey {
  /** The key id (dashed UUID) the string names. */
  readonly id: string;
  readonly kind: ApiKeyKind;
  readonly isPublic: boolean;
}

/** The parts of a well-formed key string whose checksum matches; undefined for anything else. */
export function parseApiKey(value: string): ParsedApiKey | undefined {
  const m = KEY.exec(value);
  if (!m) return undefined;
  const [, prefix, , idHex, kind, flag, , sum] = m as unknown as [string, string, string, string, ApiKeyKind, string, string, string];
  if (checksum(value.slice(0, -8)) !== sum) return undefined;
  const isPublic = prefix === "pk";
  if (flag !== scannerFlag(isPublic)) return undefined;
  const id = `${idHex.slice(0, 8)}-${idHex.slice(8, 12)}-${idHex.slice(12, 16)}-${idHex.slice(16, 20)}-${idHex.slice(20)}`;
  return { id, kind, isPublic };
}

/** The stored facts a check decides on. */
export interface ApiKeyFacts {
  readonly projectId: string;
  readonly kind: ApiKeyKind;
  readonly expiresAt: Date | null;
  readonly manuallyRevokedAt: Date | null;
}

export type ApiKeyProblem = KnownError<"API_KEY_NOT_FOUND" | "WRONG_API_KEY_TYPE" | "API_KEY_REVOKED" | "API_KEY_EXPIRED">;

/**
 * Why a key cannot be used by `projectId` as a `kind` key now, in the contract's order (not found, wrong type,
 * revoked, expired), or null when it is valid. A key of another project is "not found".
 */
export function apiKeyProblem(key: ApiKeyFacts | undefined, projectId: string, kind: ApiKeyKind, now: Date): ApiKeyProblem | null {
  if (!key || key.projectId !== projectId) return knownError("API_KEY_NOT_FOUND");
  if (key.kind !== kind) return knownError("WRONG_API_KEY_TYPE", { expected_type: kind, actual_type: key.kind });
  if (key.manuallyRevokedAt) return knownError("API_KEY_REVOKED");
  if (key.expiresAt && key.expiresAt.getTime() <= now.getTime()) return knownError("API_KEY_EXPIRED");
  return null;
}
