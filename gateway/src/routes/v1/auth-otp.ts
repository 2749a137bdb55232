import { Type } from "typebox";
import { CallbackUrl, Email, Obj, Optional } from "../../validation/index.ts";
import { defineRoute } from "../route.ts";
import { signInBody } from "../helpers.ts";
import { botChallengeFields, checkBotChallenge } from "../bot-challenge.ts";

const ANY = ["client", "server", "admin"] as const;
const Code45 = Type.String({ minLength: 45, maxLength: 45 });


export const sendSignInCodeRoute = defineRoute({
  method: "POST",
  path: "/auth/otp/send-sign-in-code",
  summary: "E-mail a one-time sign-in code and magic link; returns the nonce",
  tags: ["OTP"],
  access: ANY,
  schemas: { body: Obj({ email: Email(), callback_url: CallbackUrl(), ...botChallengeFields }) },
  async handler({ auth, body, clients, clientIp, req }) {
    checkBotChallenge(auth.project, body);
    const { nonce } = await clients.otp.sendSignInCode({
      projectId: auth.projectId,
      email: body.email,
      callbackUrl: body.callback_url,
      client: { ip: clientIp, userAgent: req.headers["user-agent"] ?? "" },
    });
    return { json: { nonce } };
  },
});

export const checkSignInCodeRoute = defineRoute({
  method: "POST",
  path: "/auth/otp/sign-in/check-code",
  summary: "Check a sign-in code without using it",
  tags: ["OTP"],
  access: ANY,
  schemas: { body: Obj({ code: Code45 }) },
  async handler({ auth, body, clients, clientIp }) {
    await clients.otp.checkSignInCode({ projectId: auth.projectId, code: body.code, client: { ip: clientIp } });
    return { json: { is_code_valid: true } };
  },
});

export const otpSignInRoute = defineRoute({
  method: "POST",
  path: "/auth/otp/sign-in",
  summary: "Sign in (or up) with the code of a magic link, or the e-mailed OTP followed by the nonce",
  tags: ["OTP"],
  access: ANY,
  schemas: { body: Obj({ code: Code45 }) },
  async handler({ auth, body, clients, clientIp, req }) {
    const { result } = await clients.otp.signInWithCode({
      projectId: auth.projectId,
      code: body.code,
      anonymousUserId: auth.user?.isAnonymous ? auth.user.id : "",
      client: { ip: clientIp, userAgent: req.headers["user-agent"] ?? "" },
    });
    return { json: signInBody(result, true) };
  },
});
