import type { MessageInitShape } from "@bufbuild/protobuf";
import type { SignUpAnonymouslyRequest, SignUpAnonymouslyResponseSchema, SignUpWithPasswordRequest, SignUpWithPasswordResponseSchema } from "@vestibule/proto/auth/v1/password_service";
import type { User } from "@vestibule/proto/identity/v1/user";
import { withTransaction } from "@vestibule/shared/db";
import { normalizeEmail } from "@vestibule/shared/emails";
import { knownError } from "@vestibule/shared/errors";
import { isUuid } from "@vestibule/shared/ids";
import { linkWithCode } from "../codes/domain/codes.ts";
import { verificationEmail } from "../domain/emails.ts";
import type { AuthRuntime } from "../runtime.ts";
import { assertPasswordRules } from "./domain/passwords.ts";
import { assertTrusted, compensateCreatedUser, compensationFailed, findAuthUser, passwordSettings } from "./password-checks.ts";
import { credentialStore } from "./store/credential-store.ts";

/**
 * Password sign-up (SignUpWithPassword), in its own module like sign-in (password-sign-in.ts): a new user in identity,
 * or an anonymous user upgraded in place, its argon2id hash, a session and, with a callback URL, the verification
 * e-mail in the same transaction. Identity and our schema cannot share a transaction, so a failure after identity
 * created the user deletes it again (compensateCreatedUser).
 */
export async function signUpWithPassword(rt: AuthRuntime, req: SignUpWithPasswordRequest): Promise<MessageInitShape<typeof SignUpWithPasswordResponseSchema>> {
  const { ctx, identity, sessions, hasher, codes, mailer } = rt;
  const { pool } = ctx;
  const s = await passwordSettings(rt, req.projectId);
  // No callback URL (the current SDK's noVerificationCallback): the user is created unverified and no e-mail goes out.
  const callbackUrl = req.verificationCallbackUrl || undefined;
  if (callbackUrl !== undefined) assertTrusted(s, callbackUrl);
  if (!s.allowSignUp) throw knownError("SIGN_UP_NOT_ENABLED");
  assertPasswordRules(req.password);
  const email = normalizeEmail(req.email);
  if (await findAuthUser(rt, req.projectId, email)) {
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
      await credentialStore.delete(pool, req.projectId, anonymous.id).catch((cause: unknown) => compensationFailed(rt, req.projectId, anonymous.id, cause));
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
    if (created) await compensateCreatedUser(rt, req.projectId, user.id, err);
    throw err;
  }
  return { result: await sessions.result(s, user, session, true) };
}

/** Anonymous sign-up (SignUpAnonymously): an anonymous user in identity and its session. */
export async function signUpAnonymously(rt: AuthRuntime, req: SignUpAnonymouslyRequest): Promise<MessageInitShape<typeof SignUpAnonymouslyResponseSchema>> {
  const { ctx, identity, settings, sessions } = rt;
  const { pool } = ctx;
  const s = await settings.get(req.projectId);
  const ip = req.client?.ip ?? "";
  const { user } = await identity.users.createUser({ projectId: req.projectId, isAnonymous: true, signUpMethod: "anonymous", signUpIp: ip });
  let session;
  try {
    session = await sessions.open(pool, { projectId: req.projectId, userId: user!.id, ip, isSignIn: true });
  } catch (err) {
    await compensateCreatedUser(rt, req.projectId, user!.id, err);
    throw err;
  }
  return { result: await sessions.result(s, user!, session, true) };
}
