import { knownError } from "@vestibule/shared/errors";
import { MFA_ATTEMPT_LIFETIME_MS } from "./domain/totp.ts";
import type { AuthRuntime } from "../runtime.ts";
import { securityRuntime } from "../security-runtime.ts";

/**
 * The gate every sign-in method passes before it issues tokens. A user with a TOTP secret does not get tokens: the
 * method fails with MULTI_FACTOR_AUTHENTICATION_REQUIRED carrying a 45-character attempt code (valid 5 minutes, one
 * use) that `POST /auth/mfa/sign-in` exchanges, together with a current TOTP, for the tokens the method would have
 * issued. `isNewUser` is carried to that result. The auth service's own table decides (identity's
 * `requires_totp_mfa` only mirrors it for the user views), so a flag that is out of step can never skip the factor.
 * A user whose identity record says MFA is required is held to it as well.
 *
 * Call it after the first factor succeeded and before opening a session:
 * `await requireSecondFactor(rt, { projectId, userId: user.id, requiresTotpMfa: user.requiresTotpMfa })`.
 */
export async function requireSecondFactor(
  rt: AuthRuntime,
  input: { projectId: string; userId: string; requiresTotpMfa?: boolean; isNewUser?: boolean },
): Promise<void> {
  const { totp } = securityRuntime(rt);
  const required = input.requiresTotpMfa === true || (await totp.has(rt.ctx.pool, input.projectId, input.userId));
  if (!required) return;
  const attemptCode = await rt.codes.create(rt.ctx.pool, {
    projectId: input.projectId,
    purpose: "mfa_attempt",
    userId: input.userId,
    data: { user_id: input.userId, is_new_user: input.isNewUser === true },
    lifetimeMs: MFA_ATTEMPT_LIFETIME_MS,
  });
  throw knownError("MULTI_FACTOR_AUTHENTICATION_REQUIRED", { attempt_code: attemptCode });
}
