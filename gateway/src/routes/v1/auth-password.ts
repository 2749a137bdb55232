import { Type } from "typebox";
import { CallbackUrl, Email, Obj, Optional } from "../../validation/index.ts";
import { defineRoute } from "../route.ts";
import { signInBody } from "../helpers.ts";
import { botChallengeFields, checkBotChallenge } from "../bot-challenge.ts";

const ANY = ["client", "server", "admin"] as const;


const Code45 = Type.String({ minLength: 45, maxLength: 45 });

export const passwordSignUpRoute = defineRoute({
  method: "POST",
  path: "/auth/password/sign-up",
  summary: "Sign up with e-mail and password",
  tags: ["Password"],
  access: ANY,
  schemas: {
    body: Obj({ email: Email(), password: Type.String(), verification_callback_url: CallbackUrl(), ...botChallengeFields }),
  },
  async handler({ auth, body, clients, clientIp, req }) {
    checkBotChallenge(auth.project, body);
    const { result } = await clients.passwords.signUpWithPassword({
      projectId: auth.projectId,
      email: body.email,
      password: body.password,
      verificationCallbackUrl: body.verification_callback_url,
      anonymousUserId: auth.user?.isAnonymous ? auth.user.id : "",
      client: { ip: clientIp, userAgent: req.headers["user-agent"] ?? "" },
    });
    return { json: signInBody(result, false) };
  },
});

export const passwordSignInRoute = defineRoute({
  method: "POST",
  path: "/auth/password/sign-in",
  summary: "Sign in with e-mail and password",
  tags: ["Password"],
  access: ANY,
  schemas: { body: Obj({ email: Email(), password: Type.String({ maxLength: 70 }) }) },
  async handler({ auth, body, signIns, clientIp, req }) {
    const { result } = await signIns.signIn({
      projectId: auth.projectId,
      email: body.email,
      password: body.password,
      client: { ip: clientIp, userAgent: req.headers["user-agent"] ?? "" },
    });
    return { json: signInBody(result, false) };
  },
});

export const sendResetCodeRoute = defineRoute({
  method: "POST",
  path: "/auth/password/send-reset-code",
  summary: "E-mail a password reset link (same answer whether or not the user exists)",
  tags: ["Password"],
  access: ANY,
  schemas: { body: Obj({ email: Email(), callback_url: CallbackUrl() }) },
  async handler({ auth, body, clients, clientIp }) {
    await clients.passwords.sendPasswordResetCode({ projectId: auth.projectId, email: body.email, callbackUrl: body.callback_url, client: { ip: clientIp } });
    return { json: { success: "maybe, only if user with e-mail exists" } };
  },
});

export const checkResetCodeRoute = defineRoute({
  method: "POST",
  path: "/auth/password/reset/check-code",
  summary: "Check a password reset code without using it",
  tags: ["Password"],
  access: ANY,
  schemas: { body: Obj({ code: Code45 }) },
  async handler({ auth, body, clients, clientIp }) {
    await clients.passwords.checkPasswordResetCode({ projectId: auth.projectId, code: body.code, client: { ip: clientIp } });
    return { json: { is_code_valid: true } };
  },
});

export const resetPasswordRoute = defineRoute({
  method: "POST",
  path: "/auth/password/reset",
  summary: "Set a new password with a reset code (signs out every session)",
  tags: ["Password"],
  access: ANY,
  schemas: { body: Obj({ code: Code45, password: Type.String() }) },
  async handler({ auth, body, clients, clientIp }) {
    await clients.passwords.resetPassword({ projectId: auth.projectId, code: body.code, password: body.password, client: { ip: clientIp } });
    return { json: { success: true } };
  },
});

export const updatePasswordRoute = defineRoute({
  method: "POST",
  path: "/auth/password/update",
  summary: "Change the signed-in user's password (other sessions are signed out)",
  tags: ["Password"],
  access: ANY,
  user: "schema",
  schemas: { body: Obj({ old_password: Type.String(), new_password: Type.String() }) },
  async handler({ auth, body, clients, clientIp }) {
    await clients.passwords.updatePassword({
      projectId: auth.projectId,
      userId: auth.user!.id,
      oldPassword: body.old_password,
      newPassword: body.new_password,
      keepSessionId: auth.user!.refreshTokenId,
      keepRefreshToken: auth.refreshToken ?? "",
      client: { ip: clientIp },
    });
    return { json: { success: true } };
  },
});

export const setPasswordRoute = defineRoute({
  method: "POST",
  path: "/auth/password/set",
  summary: "Set a password for a signed-in user who has none",
  tags: ["Password"],
  access: ANY,
  user: "schema",
  schemas: { body: Obj({ password: Type.String() }) },
  async handler({ auth, body, clients }) {
    await clients.passwords.setPassword({ projectId: auth.projectId, userId: auth.user!.id, password: body.password });
    return { json: { success: true } };
  },
});

export const anonymousSignUpRoute = defineRoute({
  method: "POST",
  path: "/auth/anonymous/sign-up",
  summary: "Create an anonymous user and sign it in",
  tags: ["Anonymous"],
  access: ANY,
  schemas: { body: Optional(Obj({})) },
  async handler({ auth, clients, clientIp, req }) {
    const { result } = await clients.passwords.signUpAnonymously({ projectId: auth.projectId, client: { ip: clientIp, userAgent: req.headers["user-agent"] ?? "" } });
    return { json: signInBody(result, false) };
  },
});

