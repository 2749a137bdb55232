import type { ServiceImpl } from "@connectrpc/connect";
import { OtpService } from "@vestibule/proto/auth/v1/otp_service";
import type { User } from "@vestibule/proto/identity/v1/user";
import { withTransaction } from "@vestibule/shared/db";
import { knownError, statusError } from "@vestibule/shared/errors";
import { isUuid } from "@vestibule/shared/ids";
import { codeTail, linkWithCode } from "./domain/codes.ts";
import { magicLinkEmail } from "../domain/emails.ts";
import { isRedirectUrlTrusted } from "../domain/redirect.ts";
import type { AuthSettings } from "../domain/settings.ts";
import { normalizeEmail } from "@vestibule/shared/emails";
import type { AuthRuntime } from "../runtime.ts";
import { requireSecondFactor } from "../mfa/second-factor.ts";

/** Characters of the code an OTP e-mail shows (upper-cased); the client keeps the other 39, the nonce. */
export const OTP_LENGTH = 6;

/**
 * Magic-link / one-time-code sign-in (contract endpoints.md §1 OTP and §1.9). One 45-character code (purpose
 * `otp_sign_in`, the shared verification-code store: hashed, 7-day lifetime, single use, attempts counted per nonce,
 * brute-force limits per IP and nonce) per request; the e-mail shows its first 6 characters upper-cased and a link
 * `callback_url?code=<45>`, and the caller gets the other 39 as the nonce. Signing in with an unknown e-mail creates
 * the user (verified e-mail used for sign-in, OTP enabled); a known verified user gets the OTP method attached. A user
 * with TOTP passes the shared second-factor gate before any session is opened.
 */
export function createOtpService(rt: AuthRuntime): ServiceImpl<typeof OtpService> {
  const { ctx, identity, settings, sessions, limiter, codes, mailer } = rt;
  const { pool } = ctx;

  async function otpSettings(projectId: string): Promise<AuthSettings> {
    const s = await settings.get(projectId);
    if (!s.otpSignIn) throw statusError(403, "OTP sign-in is not enabled for this project");
    return s;
  }

  return {
    async sendSignInCode(req) {
      // Contract order: OTP disabled, the e-mail's user (unverified → exists; unknown and no sign-up), the callback.
      const s = await otpSettings(req.projectId);
      const email = normalizeEmail(req.email);
      const found = await identity.users.findUserByAuthEmail({ projectId: req.projectId, email });
      if (found.user && !found.emailVerified) throw knownError("USER_EMAIL_ALREADY_EXISTS", { email, would_work_if_email_was_verified: true });
      if (!found.user && !s.allowSignUp) throw knownError("SIGN_UP_NOT_ENABLED");
      if (!isRedirectUrlTrusted(req.callbackUrl, s.redirectTrust)) throw knownError("REDIRECT_URL_NOT_WHITELISTED");
      // Throttles e-mails to one inbox (its own method: never blocks sign-in).
      await limiter.count({ method: "otp_send", projectId: req.projectId, account: email });
      const userId = found.user?.id ?? "";
      const code = await withTransaction(pool, async (tx) => {
        const c = await codes.create(tx, { projectId: req.projectId, purpose: "otp_sign_in", userId: isUuid(userId) ? userId : null, data: { email } });
        const otp = c.slice(0, OTP_LENGTH).toUpperCase();
        await mailer.request(tx, { projectId: req.projectId, to: email, userId, content: magicLinkEmail(s.displayName, linkWithCode(req.callbackUrl, c), otp) });
        return c;
      });
      return { nonce: codeTail(code) };
    },

    async checkSignInCode(req) {
      await codes.check(req.projectId, "otp_sign_in", req.code, req.client?.ip ?? "");
      return {};
    },

    async signInWithCode(req) {
      const s = await otpSettings(req.projectId);
      const ip = req.client?.ip ?? "";
      const row = await codes.check(req.projectId, "otp_sign_in", req.code, ip);
      const email = typeof row.data.email === "string" ? row.data.email : "";
      if (!email) throw knownError("VERIFICATION_CODE_NOT_FOUND");
      // Used first: a code signs in at most once, even when two requests race.
      await codes.consume(pool, row);

      const found = await identity.users.findUserByAuthEmail({ projectId: req.projectId, email });
      let user: User;
      let isNewUser = false;
      if (found.user) {
        if (!found.emailVerified) throw knownError("USER_EMAIL_ALREADY_EXISTS", { email, would_work_if_email_was_verified: true });
        user = found.user;
        if (!user.otpAuthEnabled) user = (await identity.users.updateUser({ projectId: req.projectId, userId: user.id, otpAuthEnabled: true })).user!;
      } else {
        if (!s.allowSignUp) throw knownError("SIGN_UP_NOT_ENABLED");
        const anonymous = req.anonymousUserId && isUuid(req.anonymousUserId) ? await sessions.getUser(req.projectId, req.anonymousUserId) : undefined;
        if (anonymous?.isAnonymous) {
          const res = await identity.users.updateUser({
            projectId: req.projectId,
            userId: anonymous.id,
            primaryEmail: { value: email },
            primaryEmailVerified: true,
            primaryEmailAuthEnabled: true,
            otpAuthEnabled: true,
            isAnonymous: false,
          });
          user = res.user!;
        } else {
          const res = await identity.users.createUser({
            projectId: req.projectId,
            primaryEmail: email,
            primaryEmailVerified: true,
            primaryEmailAuthEnabled: true,
            otpAuthEnabled: true,
            signUpMethod: "otp",
            signUpIp: ip,
          });
          user = res.user!;
        }
        isNewUser = true;
      }
      // The second factor (second-factor.ts): MULTI_FACTOR_AUTHENTICATION_REQUIRED with an attempt code for a TOTP user.
      await requireSecondFactor(rt, { projectId: req.projectId, userId: user.id, requiresTotpMfa: user.requiresTotpMfa, isNewUser });
      return { result: await sessions.signIn(s, user, { ip, isNewUser }) };
    },
  };
}
