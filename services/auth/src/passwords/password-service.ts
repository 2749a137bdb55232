import { Code, type ServiceImpl } from "@connectrpc/connect";
import { PasswordService, type SignInWithPasswordRequest } from "@vestibule/proto/auth/v1/password_service";
import type { User } from "@vestibule/proto/identity/v1/user";
import { withTransaction } from "@vestibule/shared/db";
import { knownError, statusError, toItemError } from "@vestibule/shared/errors";
import { isUuid } from "@vestibule/shared/ids";
import { linkWithCode, PASSWORD_RESET_CODE_LIFETIME_MS } from "../codes/domain/codes.ts";
import { passwordResetEmail, verificationEmail } from "../domain/emails.ts";
import { assertPasswordRules } from "./domain/passwords.ts";
import { isRedirectUrlTrusted } from "../domain/redirect.ts";
import { normalizeEmail } from "@vestibule/shared/emails";
import { MAX_SIGN_IN_BATCH, PasswordSignIns, type PasswordSignInInput } from "./password-sign-in.ts";
import type { AuthSettings } from "../domain/settings.ts";
import type { AuthRuntime } from "../runtime.ts";
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
  const { ctx, identity, settings, sessions, hasher, limiter, codes, mailer } = rt;
  const { pool, log } = ctx;
  const signIns = new PasswordSignIns(rt);

  async function passwordSettings(projectId: string): Promise<AuthSettings> {
    const s = await settings.get(projectId);
    if (!s.passwordSignIn) throw knownError("PASSWORD_AUTHENTICATION_NOT_ENABLED");
    return s;
  }

  function assertTrusted(s: AuthSettings, url: string): void {
    if (!isRedirectUrlTrusted(url, s.redirectTrust)) throw knownError("REDIRECT_URL_NOT_WHITELISTED");
  }

  async function findAuthUser(projectId: string, email: string): Promise<User | undefined> {
    const res = await identity.users.findUserByAuthEmail({ projectId, email });
    return res.user;
  }

  /** A user that must exist (path semantics: USER_NOT_FOUND). */
  async function existingUser(projectId: string, userId: string): Promise<User> {
    if (!isUuid(userId)) throw knownError("USER_NOT_FOUND");
    const user = await sessions.getUser(projectId, userId);
    if (!user) throw knownError("USER_NOT_FOUND");
    return user;
  }

  /** Mirrors "has a password" into identity's user (which serves has_password / auth_with_email). */
  async function syncHasPassword(projectId: string, user: User, hasPassword: boolean): Promise<void> {
    if (user.hasPassword === hasPassword) return;
    await identity.users.updateUser({ projectId, userId: user.id, hasPassword });
  }

  /** Best-effort undo of a user created in identity when storing its credentials failed. */
  async function compensateCreatedUser(projectId: string, userId: string, cause: unknown): Promise<void> {
    log.warn({ project_id: projectId, user_id: userId, err: (cause as Error)?.message }, "storing credentials failed; deleting the user just created");
    try {
      await identity.users.deleteUser({ projectId, userId });
    } catch (err) {
      log.error({ project_id: projectId, user_id: userId, err }, "compensation failed: could not delete the user created in identity");
    }
  }

  /** Undoing a stored password after a later step failed did not work either: logged, the first error still answers. */
  function compensationFailed(projectId: string, userId: string, cause: unknown): void {
    log.error({ project_id: projectId, user_id: userId, err: (cause as Error)?.message }, "compensation failed: could not delete the password just stored");
  }

  return {
    async signUpWithPassword(req) {
      const s = await passwordSettings(req.projectId);
      // No callback URL (the current SDK's noVerificationCallback): the user is created unverified and no e-mail goes out.
      const callbackUrl = req.verificationCallbackUrl || undefined;
      if (callbackUrl !== undefined) assertTrusted(s, callbackUrl);
      if (!s.allowSignUp) throw knownError("SIGN_UP_NOT_ENABLED");
      assertPasswordRules(req.password);
      const email = normalizeEmail(req.email);
      if (await findAuthUser(req.projectId, email)) {
        throw knownError("USER_EMAIL_ALREADY_EXISTS", { email, would_work_if_email_was_verified: false });
      }
      const passwordHash = await hasher.hash(req.password);
      const ip = req.client?.ip ?? "";
      const anonymous = req.anonymousUserId && isUuid(req.anonymousUserId) ? await sessions.getUser(req.projectId, req.anonymousUserId) : undefined;

      let user: User;
      /** Whether identity created the user now (else an anonymous user was upgraded): decides the compensation. */
      let created: boolean;
      if (anonymous?.isAnonymous) {
        // Upgrade in place: the credential first, then identity; if identity refuses, the credential goes again.
        await credentialStore.upsert(pool, req.projectId, anonymous.id, passwordHash);
        try {
          const res = await identity.users.updateUser({
            projectId: req.projectId,
            userId: anonymous.id,
            primaryEmail: { value: email },
            primaryEmailVerified: false,
            primaryEmailAuthEnabled: true,
            hasPassword: true,
            isAnonymous: false,
          });
          user = res.user!;
        } catch (err) {
          await credentialStore.delete(pool, req.projectId, anonymous.id).catch((cause: unknown) => compensationFailed(req.projectId, anonymous.id, cause));
          throw err;
        }
        created = false;
      } else {
        const res = await identity.users.createUser({
          projectId: req.projectId,
          primaryEmail: email,
          primaryEmailVerified: false,
          primaryEmailAuthEnabled: true,
          hasPassword: true,
          signUpMethod: "password",
          signUpIp: ip,
        });
        user = res.user!;
        created = true;
      }

      let session;
      try {
        session = await withTransaction(pool, async (tx) => {
          if (created) await credentialStore.upsert(tx, req.projectId, user.id, passwordHash);
          const opened = await sessions.open(tx, { projectId: req.projectId, userId: user.id, ip, isSignIn: true });
          if (callbackUrl === undefined) return opened;
          const code = await codes.create(tx, {
            projectId: req.projectId,
            purpose: "contact_channel_verification",
            userId: user.id,
            data: { user_id: user.id, email },
          });
          await mailer.request(tx, {
            projectId: req.projectId,
            to: email,
            userId: user.id,
            content: verificationEmail(s.displayName, linkWithCode(callbackUrl, code)),
          });
          return opened;
        });
      } catch (err) {
        if (created) await compensateCreatedUser(req.projectId, user.id, err);
        throw err;
      }
      return { result: await sessions.result(s, user, session, true) };
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
      const s = await settings.get(req.projectId);
      const ip = req.client?.ip ?? "";
      const { user } = await identity.users.createUser({ projectId: req.projectId, isAnonymous: true, signUpMethod: "anonymous", signUpIp: ip });
      let session;
      try {
        session = await sessions.open(pool, { projectId: req.projectId, userId: user!.id, ip, isSignIn: true });
      } catch (err) {
        await compensateCreatedUser(req.projectId, user!.id, err);
        throw err;
      }
      return { result: await sessions.result(s, user!, session, true) };
    },

    async updatePassword(req) {
      await passwordSettings(req.projectId);
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
      await passwordSettings(req.projectId);
      assertPasswordRules(req.password);
      const alreadySet = () => statusError(400, "User already has a password set.");
      const user = await existingUser(req.projectId, req.userId);
      if (await credentialStore.get(pool, req.projectId, user.id)) throw alreadySet();
      const passwordHash = await hasher.hash(req.password);
      const inserted = await withTransaction(pool, async (tx) => {
        if (!(await credentialStore.insertIfAbsent(tx, req.projectId, user.id, passwordHash))) return false;
        await codes.revokeOutstanding(tx, req.projectId, user.id, "password_reset");
        return true;
      });
      if (!inserted) throw alreadySet();
      try {
        await syncHasPassword(req.projectId, user, true);
      } catch (err) {
        await credentialStore.delete(pool, req.projectId, user.id).catch((cause: unknown) => compensationFailed(req.projectId, user.id, cause));
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
      const user = await existingUser(req.projectId, req.userId);
      if (c.case === "password") passwordHash = await hasher.hash(c.value);
      await withTransaction(pool, async (tx) => {
        if (passwordHash !== undefined) await credentialStore.upsert(tx, req.projectId, user.id, passwordHash);
        else await credentialStore.delete(tx, req.projectId, user.id);
        // Setting or removing a password signs the user out everywhere (contract tokens.md §3) and voids its reset codes.
        await sessions.revokeAllIn(tx, req.projectId, user.id);
        await codes.revokeOutstanding(tx, req.projectId, user.id, "password_reset");
      });
      await syncHasPassword(req.projectId, user, passwordHash !== undefined);
      return {};
    },

    async sendPasswordResetCode(req) {
      const started = Date.now();
      const s = await passwordSettings(req.projectId);
      assertTrusted(s, req.callbackUrl);
      const email = normalizeEmail(req.email);
      // Throttles e-mails to one inbox (a separate method: never blocks sign-in); the same for unknown addresses.
      await limiter.count({ method: "password_reset_send", projectId: req.projectId, account: email });
      const user = await findAuthUser(req.projectId, email);
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
      await syncHasPassword(req.projectId, user, true);
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
