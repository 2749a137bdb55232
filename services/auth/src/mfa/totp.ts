import type { Pool, Queryable } from "@vestibule/shared/db";
import type { SecretBox } from "@vestibule/shared/secrets";
import { isTotpToken, TOTP_STEP_SECONDS } from "./domain/totp.ts";
import { totpStore } from "./store/totp-store.ts";

/** The AES-GCM associated data of a user's secret: a ciphertext copied to another user's row does not decrypt. */
function context(projectId: string, userId: string): string {
  return `totp:${projectId}:${userId}`;
}

/**
 * TOTP secrets, encrypted at rest with the service's SecretBox, and code verification with otplib: the current step
 * or one either side, and only a step after the last one used (a code works once; an older code never again).
 */
export class TotpSecrets {
  /** Codes compared with a user's secret so far: how tests see how many guesses were actually checked. */
  verifications = 0;

  constructor(private readonly deps: { pool: Pool; secrets: SecretBox }) {}

  async set(db: Queryable, projectId: string, userId: string, secret: Uint8Array): Promise<void> {
    await totpStore.upsert(db, projectId, userId, await this.deps.secrets.encrypt(secret, context(projectId, userId)));
  }

  has(db: Queryable, projectId: string, userId: string): Promise<boolean> {
    return totpStore.exists(db, projectId, userId);
  }

  /**
   * The step `token` belongs to if it is a valid, unused code of the user's secret now; undefined otherwise (also
   * when the user has no secret). Does not record the use: see `useStep`.
   */
  async match(projectId: string, userId: string, token: string, nowMillis = Date.now()): Promise<number | undefined> {
    if (!isTotpToken(token)) return undefined;
    const row = await totpStore.get(this.deps.pool, projectId, userId);
    if (!row) return undefined;
    // Loaded at the first code checked, not at every start (~8 MB; most projects never use TOTP).
    const { verify } = await import("otplib");
    const secret = await this.deps.secrets.decryptToBuffer(row.secret_ciphertext, context(projectId, userId));
    const epoch = Math.floor(nowMillis / 1000);
    this.verifications++;
    try {
      const result = await verify({
        secret: new Uint8Array(secret),
        token,
        epoch,
        epochTolerance: TOTP_STEP_SECONDS,
        ...(row.last_used_step > 0 ? { afterTimeStep: row.last_used_step } : {}),
      });
      return result.valid && "timeStep" in result ? result.timeStep : undefined;
    } catch {
      // otplib refuses an afterTimeStep beyond the window (a clock that went back): nothing can match then.
      return undefined;
    } finally {
      secret.fill(0);
    }
  }

  /** Records the step of an accepted code; false when it (or a later step) was used meanwhile (a concurrent replay). */
  useStep(db: Queryable, projectId: string, userId: string, step: number): Promise<boolean> {
    return totpStore.useStep(db, projectId, userId, step);
  }
}
