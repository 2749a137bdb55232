import { Type } from "typebox";
import { Obj, OneOf } from "../../validation/index.ts";
import { defineRoute } from "../route.ts";
import { signInBody } from "../helpers.ts";

const ANY = ["client", "server", "admin"] as const;

/**
 * `POST /auth/mfa/sign-in`: the second step of a sign-in of a user with TOTP. `code` is the attempt code from the
 * MULTI_FACTOR_AUTHENTICATION_REQUIRED error of the first step, `totp` the authenticator's current 6 digits.
 */
export const mfaSignInRoute = defineRoute({
  method: "POST",
  path: "/auth/mfa/sign-in",
  summary: "Finish a sign-in with a TOTP code (multi-factor authentication)",
  tags: ["Multi-factor authentication"],
  access: ANY,
  schemas: { body: Obj({ type: OneOf(["totp"]), totp: Type.String(), code: Type.String({ minLength: 45, maxLength: 45 }) }) },
  async handler({ auth, body, clients, clientIp, req }) {
    const { result } = await clients.mfa.signInWithTotp({
      projectId: auth.projectId,
      attemptCode: body.code,
      totp: body.totp,
      client: { ip: clientIp, userAgent: req.headers["user-agent"] ?? "" },
    });
    return { json: signInBody(result, true) };
  },
});
