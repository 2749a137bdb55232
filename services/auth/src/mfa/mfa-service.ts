import type { ServiceImpl } from "@connectrpc/connect";
import { MfaService } from "@vestibule/proto/auth/v1/mfa_service";
import type { User } from "@vestibule/proto/identity/v1/user";
import { withTransaction } from "@vestibule/shared/db";
import { knownError } from "@vestibule/shared/errors";
import { isUuid } from "@vestibule/shared/ids";
import { assertTotpSecret } from "./domain/totp.ts";
import type { AuthRuntime } from "../runtime.ts";
import type { SecurityRuntime } from "../security-runtime.ts";
import { totpStore } from "./store/totp-store.ts";

/**
 * MfaService: TOTP secrets (set and removed through user create/update) and the second step of a sign-in.
 *
 * The secret lives only here, encrypted; identity keeps `requires_totp_mfa` for the user views and token claims.
 * Both are changed together: the secret first, then identity's flag; when identity refuses, the previous secret (or
 * its absence) is put back, so the two never disagree for longer than a failed call.
 */
export function createMfaService(rt: AuthRuntime, sec: SecurityRuntime): ServiceImpl<typeof MfaService> {
  const { ctx, identity, sessions, settings, codes, limiter } = rt;
  const { pool } = ctx;
  const { totp } = sec;

  async function existingUser(projectId: string, userId: string): Promise<User> {
    const user = isUuid(userId) ? await sessions.getUser(projectId, userId) : undefined;
    if (!user) throw knownError("USER_NOT_FOUND");
    return user;
  }

  return {
    async setTotpSecret(req) {
      if (req.secret !== undefined) assertTotpSecret(req.secret);
      const user = await existingUser(req.projectId, req.userId);
      const previous = await totpStore.get(pool, req.projectId, user.id);
      if (req.secret !== undefined) await totp.set(pool, req.projectId, user.id, req.secret);
      else await totpStore.delete(pool, req.projectId, user.id);
      const enabled = req.secret !== undefined;
      if (user.requiresTotpMfa === enabled) return { user };
      try {
        const res = await identity.users.updateUser({ projectId: req.projectId, userId: user.id, requiresTotpMfa: enabled });
        return { user: res.user };
      } catch (err) {
        const restore = previous
          ? totpStore.upsert(pool, req.projectId, user.id, previous.secret_ciphertext, previous.last_used_step)
          : totpStore.delete(pool, req.projectId, user.id);
        await restore.catch((e: unknown) => ctx.log.error({ err: e, user_id: user.id }, "could not restore the TOTP secret after identity refused the change"));
        throw err;
      }
    },

    async signInWithTotp(req) {
      const ip = req.client?.ip ?? "";
      const row = await codes.check(req.projectId, "mfa_attempt", req.attemptCode, ip);
      const userId = row.user_id;
      const user = userId ? await sessions.getUser(req.projectId, userId) : undefined;
      if (!user) throw knownError("VERIFICATION_CODE_NOT_FOUND");
      // Wrong codes count per user (whatever attempt code they come with) and per IP: a guesser is slowed down to a
      // handful of tries before each growing block, besides the attempt code's own 20-try limit.
      const s = await settings.get(req.projectId);
      const session = await limiter.guard({ method: "totp", projectId: req.projectId, account: user.id, ip: ip || undefined }, async (attempt) => {
        const step = await totp.match(req.projectId, user.id, req.totp);
        if (step === undefined) throw knownError("INVALID_TOTP_CODE");
        try {
          const opened = await withTransaction(pool, async (tx) => {
            // A concurrent request with the same (or a later) code won: this one is a replay.
            if (!(await totp.useStep(tx, req.projectId, user.id, step))) throw knownError("INVALID_TOTP_CODE");
            await codes.consume(tx, row);
            return sessions.open(tx, { projectId: req.projectId, userId: user.id, ip, isSignIn: true });
          });
          attempt.success();
          return opened;
        } catch (err) {
          // The code was right: a replay or a used attempt code is not a wrong guess.
          attempt.release();
          throw err;
        }
      });
      return { result: await sessions.result(s, user, session, row.data.is_new_user === true) };
    },
  };
}
