import { Code, type ServiceImpl } from "@connectrpc/connect";
import { PasswordService, type SignInWithPasswordRequest } from "@vestibule/proto/auth/v1/password_service";
import { withTransaction } from "@vestibule/shared/db";
import { knownError, statusError, toItemError } from "@vestibule/shared/errors";
import { isUuid } from "@vestibule/shared/ids";
import { linkWithCode, PASSWORD_RESET_CODE_LIFETIME_MS } from "../codes/domain/codes.ts";
import { passwordResetEmail } from "../domain/emails.ts";
import { assertPasswordRules } from "./domain/passwords.ts";
import { normalizeEmail } from "@vestibule/shared/emails";
import { MAX_SIGN_IN_BATCH, PasswordSignIns, type PasswordSignInInput } from "./password-sign-in.ts";
import type { AuthRuntime } from "../runtime.ts";
import { assertTrusted, compensationFailed, existingUser, findAuthUser, passwordSettings, syncHasPassword } from "./password-checks.ts";
import { signUpAnonymously, signUpWithPassword } from "./password-sign-up.ts";
import { credentialStore } from "./store/credential-store.ts";
import { assertTotpSecret } from "../mfa/domain/totp.ts";
import { oauthRuntime } from "../oauth/runtime.ts";
import { createUserWithCredentials } from "../users/user-creation.ts";

function signInInput(req: SignInWithPasswordRequest): PasswordSignInInput {
  return { projectId: req.projectId, email: req.email, password: req.password, ip: req.client?.ip ?? "" };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
}

export function createPasswordService(rt: AuthRuntime): ServiceImpl<typeof PasswordService> {
  const { ctx, sessions, hasher, limiter, codes, mailer } = rt;
  const { pool, log } = ctx;
  const signIns = new PasswordSignIns(rt);

  return {
    async signUpWithPassword(req) {
      return signUpWithPassword(rt, req);
    },

    async signInWithPassword(req) {
      return { result: await signIns.signIn(signInInput(req)) };
    },

    async signInWithPasswords(req) {
      if (req.requests.length > MAX_SIGN_IN_BATCH) throw statusError(400, `At most ${MAX_SIGN_IN_BATCH} sign-ins per call.`);
      const outcomes = await signIns.signInMany(req.requests.map(signInInput));
      return {
        results: outcomes.map((o) => {
          if ("ok" in o) return { outcome: { case: "ok" as const, value: { result: o.ok } } };
          const error = toItemError(o.error);
          if (error.code === Code.Internal || error.code === Code.Unknown) {
            log.error({ err: o.error, method: "vestibule.auth.v1.PasswordService/SignInWithPasswords" }, "sign-in of a batch item failed");
          }
          return { outcome: { case: "error" as const, value: error } };
        }),
      };
    },

    async signUpAnonymously(req) {
      return signUpAnonymously(rt, req);
    },

    async updatePassword(req) {
      await passwordSettings(rt, req.projectId);
      assertPasswordRules(req.newPassword);
      const stored = isUuid(req.userId) ? await credentialStore.get(pool, req.projectId, req.userId) : undefined;
      if (!stored) throw knownError("USER_DOES_NOT_HAVE_PASSWORD");
      await limiter.guard({ method: "password_update", projectId: req.projectId, account: req.userId, ip: req.client?.ip || undefined }, async (attempt) => {
        if (!(await hasher.verify(stored, req.oldPassword))) throw knownError("PASSWORD_CONFIRMATION_MISMATCH");
        attempt.success();
      });
      const passwordHash = await hasher.hash(req.newPassword);
      const keep = (req.keepRefreshToken ? await sessions.sessionIdOfToken(req.projectId, req.keepRefreshToken) : undefined) || req.keepSessionId || undefined;
      await withTransaction(pool, async (tx) => {
        await credentialStore.upsert(tx, req.projectId, req.userId, passwordHash);
        await sessions.revokeAllIn(tx, req.projectId, req.userId, keep);
        await codes.revokeOutstanding(tx, req.projectId, req.userId, "password_reset");
      });
      return {};
    },

    async setPassword(req) {
      await passwordSettings(rt, req.projectId);
      assertPasswordRules(req.password);
      const alreadySet = () => statusError(400, "User already has a password set.");
      const user = await existingUser(rt, req.projectId, req.userId);
      if (await credentialStore.get(pool, req.projectId, user.id)) throw alreadySet();
      const passwordHash = await hasher.hash(req.password);
      const inserted = await withTransaction(pool, async (tx) => {
        if (!(await credentialStore.insertIfAbsent(tx, req.projectId, user.id, passwordHash))) return false;
        await codes.revokeOutstanding(tx, req.projectId, user.id, "password_reset");
        return true;
      });
      if (!inserted) throw alreadySet();
      try {
        await syncHasPassword(rt, req.projectId, user, true);
      } catch (err) {
        await credentialStore.delete(pool, req.projectId, user.id).catch((cause: unknown) => compensationFailed(rt, req.projectId, user.id, cause));
        throw err;
      }
      return {};
    },

    async setUserCredential(req) {
      const c = req.credential;
      if (c.case === undefined) throw statusError(400, "Give a password, a password hash, or clear.");
      let passwordHash: string | undefined;
      if (c.case === "password") assertPasswordRules(c.value);
      if (c.case === "passwordHash") {
        hasher.assertImportable(c.value);
        passwordHash = c.value;
      }
      const user = await existingUser(rt, req.projectId, req.userId);
      if (c.case === "password") passwordHash = await hasher.hash(c.value);
      await withTransaction(pool, async (tx) => {
        if (passwordHash !== undefined) await credentialStore.upsert(tx, req.projectId, user.id, passwordHash);
        else await credentialStore.delete(tx, req.projectId, user.id);
        // Setting or removing a password signs the user out everywhere (contract tokens.md §3) and voids its reset codes.
        await sessions.revokeAllIn(tx, req.projectId, user.id);
        await codes.revokeOutstanding(tx, req.projectId, user.id, "password_reset");
      });
      await syncHasPassword(rt, req.projectId, user, passwordHash !== undefined);
      return {};
    },

    async sendPasswordResetCode(req) {
      const started = Date.now();
      const s = await passwordSettings(rt, req.projectId);
      assertTrusted(s, req.callbackUrl);
      const email = normalizeEmail(req.email);
      // Throttles e-mails to one inbox (a separate method: never blocks sign-in); the same for unknown addresses.
      await limiter.count({ method: "password_reset_send", projectId: req.projectId, account: email });
      const user = await findAuthUser(rt, req.projectId, email);
      if (user) {
        await withTransaction(pool, async (tx) => {
          const code = await codes.create(tx, {
            projectId: req.projectId,
            purpose: "password_reset",
            userId: user.id,
            data: { user_id: user.id, email },
            lifetimeMs: PASSWORD_RESET_CODE_LIFETIME_MS,
          });
          await mailer.request(tx, {
            projectId: req.projectId,
            to: email,
            userId: user.id,
            content: passwordResetEmail(s.displayName, linkWithCode(req.callbackUrl, code)),
          });
        });
      }
      // The same answer in about the same time whether or not the user exists.
      const floor = rt.config.resetCodeMinMillis * (1 + Math.random() / 2);
      await sleep(floor - (Date.now() - started));
      return {};
    },

    async checkPasswordResetCode(req) {
      await codes.check(req.projectId, "password_reset", req.code, req.client?.ip ?? "");
      return {};
    },

    async resetPassword(req) {
      const row = await codes.check(req.projectId, "password_reset", req.code, req.client?.ip ?? "");
      assertPasswordRules(req.password);
      const user = row.user_id ? await sessions.getUser(req.projectId, row.user_id) : undefined;
      if (!user) throw knownError("VERIFICATION_CODE_NOT_FOUND");
      const passwordHash = await hasher.hash(req.password);
      await withTransaction(pool, async (tx) => {
        await codes.consume(tx, row);
        await credentialStore.upsert(tx, req.projectId, user.id, passwordHash);
        await sessions.revokeAllIn(tx, req.projectId, user.id);
        // The other reset codes e-mailed to the user stop working with this one (issue 18).
        await codes.revokeOutstanding(tx, req.projectId, user.id, "password_reset");
      });
      await syncHasPassword(rt, req.projectId, user, true);
      return {};
    },

    async createUserWithCredential(req) {
      const input = req.user;
      if (!input) throw statusError(400, "user is required.");
      const c = req.credential;
      let passwordHash: string | undefined;
      if (c.case === "password") {
        // A password a server sets is not held to the sign-up length rules, as with the published backend (issue 13);
        // the route's schema caps it at 70 characters.
        passwordHash = await hasher.hash(c.value);
      } else if (c.case === "passwordHash") {
        hasher.assertImportable(c.value);
        passwordHash = c.value;
      }
      if (req.totpSecret !== undefined) assertTotpSecret(req.totpSecret);
      const oauth = input.oauthProviders.length > 0 ? await oauthRuntime(rt).settings.get(input.projectId) : undefined;
      const oauthLinks = input.oauthProviders.map((p) => {
        const provider = oauth?.providers.get(p.id);
        if (!provider) throw statusError(400, `OAuth provider with ID ${p.id} is not configured for this project.`);
        return { providerConfigId: p.id, providerType: provider.type, accountId: p.accountId, email: p.email ?? null, sharedKeys: provider.isShared };
      });
      const user = await createUserWithCredentials(rt, input, { passwordHash, totpSecret: req.totpSecret, oauthLinks });
      return { userId: user.id };
    },
  };
}
