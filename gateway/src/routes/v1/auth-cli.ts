import { Type } from "typebox";
import { CliLoginStatus } from "@vestibule/proto/auth/v1/cli_login_service";
import { statusError } from "@vestibule/shared/errors";
import { Obj, OneOf, Optional } from "../../validation/index.ts";
import { defineRoute } from "../route.ts";

const ANY = ["client", "server", "admin"] as const;

/**
 * Command-line login (contract endpoints.md §1): the CLI starts a login and polls; the user opens
 * `/handler/cli-auth-confirm?login_code=<login_code>` in a signed-in browser, whose page completes it.
 */
export const cliStartRoute = defineRoute({
  method: "POST",
  path: "/auth/cli",
  summary: "Start a CLI login: a polling code for the CLI and a login code for the browser",
  tags: ["CLI login"],
  access: ANY,
  schemas: {
    body: Optional(
      Obj({
        expires_in_millis: Optional(Type.Integer({ minimum: 0, maximum: 86_400_000 })),
        // The current SDK: the CLI's anonymous session, which the confirming browser may claim (mode claim-anon-session).
        anon_refresh_token: Optional(Type.String({ maxLength: 1000 })),
      }),
    ),
  },
  async handler({ auth, body, clients }) {
    const res = await clients.cliLogins.startCliLogin({
      projectId: auth.projectId,
      expiresInMillis: BigInt(body?.expires_in_millis ?? 0),
      anonRefreshToken: body?.anon_refresh_token ?? "",
    });
    return { json: { polling_code: res.pollingCode, login_code: res.loginCode, expires_at: new Date(Number(res.expiresAtMillis)).toISOString() } };
  },
});

const STATUS: Record<CliLoginStatus, string> = {
  [CliLoginStatus.UNSPECIFIED]: "waiting",
  [CliLoginStatus.WAITING]: "waiting",
  [CliLoginStatus.SUCCESS]: "success",
  [CliLoginStatus.EXPIRED]: "expired",
  [CliLoginStatus.USED]: "used",
};

export const cliPollRoute = defineRoute({
  method: "POST",
  path: "/auth/cli/poll",
  summary: "Poll a CLI login: waiting, expired, used, or 201 with the refresh token (once)",
  tags: ["CLI login"],
  access: ANY,
  schemas: { body: Obj({ polling_code: Type.String() }) },
  async handler({ auth, body, clients }) {
    const res = await clients.cliLogins.pollCliLogin({ projectId: auth.projectId, pollingCode: body.polling_code });
    if (res.status === CliLoginStatus.SUCCESS) return { status: 201, json: { status: "success", refresh_token: res.refreshToken } };
    return { json: { status: STATUS[res.status] } };
  },
});

export const cliCompleteRoute = defineRoute({
  method: "POST",
  path: "/auth/cli/complete",
  summary:
    "Complete a CLI login from a signed-in browser session (mode complete), or see whether it carries an anonymous CLI session (check) and claim it (claim-anon-session)",
  tags: ["CLI login"],
  access: ANY,
  schemas: {
    body: Obj({
      login_code: Type.String(),
      refresh_token: Optional(Type.String()),
      mode: Optional(OneOf(["check", "claim-anon-session", "complete"])),
    }),
  },
  async handler({ auth, body, clients }) {
    const mode = body.mode ?? "complete";
    if (mode === "complete" && body.refresh_token === undefined) throw statusError(400, "refresh_token is required to complete a CLI login.");
    const res = await clients.cliLogins.completeCliLogin({ projectId: auth.projectId, loginCode: body.login_code, refreshToken: body.refresh_token ?? "", mode });
    if (mode === "check") return { json: { cli_session_state: res.cliSessionState } };
    if (mode === "claim-anon-session") return { json: { access_token: res.accessToken, refresh_token: res.refreshToken } };
    return { json: { success: true } };
  },
});
