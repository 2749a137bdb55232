import type { Pool, Queryable } from "@vestibule/shared/db";
import { isStatusError, knownError } from "@vestibule/shared/errors";
import { newId } from "@vestibule/shared/ids";
import { hashSecret, randomCode } from "@vestibule/shared/secrets";
import { codeProblem, codeTail, DEFAULT_CODE_LIFETIME_MS, normalizeCode } from "./domain/codes.ts";
import type { Attempt, RateLimiter } from "@vestibule/shared/rate-limit";
import { codeStore, type CodeRow } from "./store/code-store.ts";

/** What a code is for; a code only works at the endpoints of its purpose. */
export type CodePurpose =
  | "password_reset"
  | "contact_channel_verification"
  | "mfa_attempt"
  | "otp_sign_in"
  | "passkey_registration"
  | "passkey_authentication";

/**
 * The one-time code store shared by password reset, e-mail verification and later magic links, invitations and MFA
 * attempts (contract endpoints.md §1.9). Codes are 45 random characters, stored only as SHA-256 (plus the SHA-256 of
 * their last 39 characters, the nonce every attempt counts against). Checking is rate limited per client IP and per
 * nonce; a code is used at most once even under concurrency.
 */
export class VerificationCodes {
  constructor(private readonly deps: { pool: Pool; limiter: RateLimiter }) {}

  /** Stores a new code (in the caller's transaction when given one) and returns it; it exists only here. */
  async create(
    db: Queryable,
    input: { projectId: string; purpose: CodePurpose; userId: string | null; data: Record<string, unknown>; lifetimeMs?: number },
  ): Promise<string> {
    const code = randomCode(45);
    await codeStore.insert(db, {
      id: newId(),
      projectId: input.projectId,
      purpose: input.purpose,
      codeHash: hashSecret(code),
      tailHash: hashSecret(codeTail(code)),
      userId: input.userId,
      data: input.data,
      lifetimeMs: input.lifetimeMs ?? DEFAULT_CODE_LIFETIME_MS,
    });
    return code;
  }

  /**
   * Checks a code without using it. Every attempt (also for codes that do not exist) counts against the codes sharing
   * its last 39 characters. Errors in contract order: VERIFICATION_CODE_NOT_FOUND, _EXPIRED, _ALREADY_USED,
   * _MAX_ATTEMPTS_REACHED (also while the nonce is blocked for guessing); 429 while the client IP is blocked.
   */
  async check(projectId: string, purpose: CodePurpose, input: string, ip: string): Promise<CodeRow> {
    const code = normalizeCode(input);
    const method = `code:${purpose}`;
    // An unknown code is a failure; a code that exists (usable or not) does not count. The client IP and the code's
    // nonce are guarded apart: guessing one nonce too often answers the contract's VERIFICATION_CODE_MAX_ATTEMPTS_REACHED
    // (400), as the published backend does (issue 13); a blocked client IP stays a 429.
    return this.deps.limiter.guard({ method, projectId, ip: ip || undefined }, async (ipAttempt) => {
      const checkCode = async (nonceAttempt?: Attempt): Promise<CodeRow> => {
        if (!code) throw knownError("VERIFICATION_CODE_NOT_FOUND");
        await codeStore.countAttempt(this.deps.pool, projectId, hashSecret(codeTail(code)));
        const row = await codeStore.byHash(this.deps.pool, projectId, purpose, hashSecret(code));
        if (!row) throw knownError("VERIFICATION_CODE_NOT_FOUND");
        ipAttempt.release();
        nonceAttempt?.release();
        const problem = codeProblem({ expiresAt: row.expires_at, usedAt: row.used_at, attempts: row.attempts }, new Date());
        if (problem) throw problem;
        return row;
      };
      if (!code) return checkCode();
      try {
        return await this.deps.limiter.guard({ method, projectId, account: codeTail(code) }, checkCode);
      } catch (err) {
        // checkCode throws known errors only: a 429 here is the nonce's own guard refusing.
        if (isStatusError(err) && err.httpStatus === 429) throw knownError("VERIFICATION_CODE_MAX_ATTEMPTS_REACHED");
        throw err;
      }
    });
  }

  /** Deletes the user's outstanding (unused) codes of a purpose, e.g. every reset code once the password changes. */
  async revokeOutstanding(db: Queryable, projectId: string, userId: string, purpose: CodePurpose): Promise<void> {
    await codeStore.deleteUnusedForUser(db, projectId, userId, purpose);
  }

  /** Marks a checked code used; VERIFICATION_CODE_ALREADY_USED when a concurrent request used it first. */
  async consume(db: Queryable, row: CodeRow): Promise<void> {
    if (!(await codeStore.markUsed(db, row.id))) throw knownError("VERIFICATION_CODE_ALREADY_USED");
  }
}
