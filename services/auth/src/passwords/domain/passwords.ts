/**
 * Password rules (product spec §5/§9, contract errors) and the formats of password hashes Vestibule accepts.
 * Pure functions, no I/O; the hashing itself is in ../password-hasher.ts.
 */
import { knownError, type KnownError } from "@vestibule/shared/errors";

export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 70;

/** PASSWORD_TOO_SHORT / PASSWORD_TOO_LONG for a password that breaks the length rules, else null. */
export function passwordProblem(password: string): KnownError<"PASSWORD_TOO_SHORT" | "PASSWORD_TOO_LONG"> | null {
  if (password.length < PASSWORD_MIN_LENGTH) return knownError("PASSWORD_TOO_SHORT", { min_length: PASSWORD_MIN_LENGTH });
  if (password.length > PASSWORD_MAX_LENGTH) return knownError("PASSWORD_TOO_LONG", { maxLength: PASSWORD_MAX_LENGTH });
  return null;
}

/** Throws the password rule error, if any. */
export function assertPasswordRules(password: string): void {
  const problem = passwordProblem(password);
  if (problem) throw problem;
}

export type PasswordHashKind = "argon2id" | "bcrypt";

const BCRYPT = /^\$2[aby]\$(0[4-9]|[12]\d|3[01])\$[./A-Za-z0-9]{53}$/;
const ARGON2ID = /^\$argon2id\$v=(16|19)\$m=\d{1,10},t=\d{1,10},p=\d{1,3}\$[A-Za-z0-9+/]{11,}\$[A-Za-z0-9+/]{16,}$/;

/**
 * The kind of a stored or imported hash in Modular Crypt Format / PHC string format: bcrypt (`$2a$`, `$2b$`, `$2y$`)
 * or argon2id (`$argon2id$v=19$m=...,t=...,p=...$salt$hash`); undefined for anything else.
 */
export function passwordHashKind(hash: string): PasswordHashKind | undefined {
  if (BCRYPT.test(hash)) return "bcrypt";
  if (ARGON2ID.test(hash)) return "argon2id";
  return undefined;
}

/** The 400 text answered for an imported hash Vestibule cannot verify (the reference's wording). */
export const INVALID_PASSWORD_HASH_MESSAGE = "Invalid password hash. Make sure it's a supported algorithm in Modular Crypt Format.";
