import type { ServiceImpl } from "@connectrpc/connect";
import { CliLoginService, CliLoginStatus } from "@vestibule/proto/auth/v1/cli_login_service";
import { withTransaction, type Queryable } from "@vestibule/shared/db";
import { knownError, statusError } from "@vestibule/shared/errors";
import { newId } from "@vestibule/shared/ids";
import { hashSecret, randomCode } from "@vestibule/shared/secrets";
import type { AuthRuntime } from "../runtime.ts";
import { cliLoginStore } from "./store/cli-login-store.ts";
import { sessionStore } from "../sessions/store/session-store.ts";

/** Contract bounds of a CLI login's lifetime: default 2 hours, at most 24 hours. */
export const CLI_LOGIN_DEFAULT_MS = 7_200_000;
export const CLI_LOGIN_MAX_MS = 86_400_000;

function context(loginId: string): string {
  return `cli-login:${loginId}`;
}

/**
 * CliLoginService: command-line login (contract endpoints.md §1, CLI login).
 *
 * Decision: completing a login does not hand the browser's own refresh token to the CLI (as the reference does) but
 * opens a new session for the same user, so the CLI shows up as a session of its own in the user's session list and
 * signing out in the browser or revoking the CLI does not affect the other. The CLI's refresh token is kept
 * encrypted only until the CLI's next poll collects it, and erased then.
 */
export function createCliLoginService(rt: AuthRuntime): ServiceImpl<typeof CliLoginService> {
  const { ctx, sessions } = rt;
  const { pool, secrets } = ctx;

  /** The user of a live session of the project whose refresh token this is, or undefined. */
  async function sessionUser(projectId: string, refreshToken: string): Promise<string | undefined> {
    const session = refreshToken ? await sessionStore.byTokenHash(pool, hashSecret(refreshToken)) : undefined;
    if (!session || session.project_id !== projectId || session.expires_at.getTime() <= Date.now()) return undefined;
    return session.user_id;
  }

  /** The waiting login of a login code (locked), or the contract's 400s. */
  async function waitingLogin(tx: Queryable, projectId: string, loginCode: string) {
    const row = loginCode ? await cliLoginStore.byLoginCodeForUpdate(tx, projectId, hashSecret(loginCode)) : undefined;
    if (!row) throw statusError(400, "Invalid login code. Start the login from the CLI again.");
    if (row.expires_at.getTime() <= Date.now()) throw statusError(400, "The login code has expired. Start the login from the CLI again.");
    if (row.completed_at) throw statusError(400, "This login code was already used.");
    return row;
  }

  return {
    async startCliLogin(req) {
      const lifetime = Number(req.expiresInMillis) || CLI_LOGIN_DEFAULT_MS;
      if (lifetime < 0 || lifetime > CLI_LOGIN_MAX_MS) throw statusError(400, `expires_in_millis must be between 0 and ${CLI_LOGIN_MAX_MS}.`);
      const pollingCode = randomCode(45);
      const loginCode = randomCode(45);
      const expiresAt = new Date(Date.now() + lifetime);
      // The current SDK may pass the CLI's anonymous session, which the browser can then claim (mode
      // "claim-anon-session"); it must be a live session of an anonymous user of this project.
      let anonUserId: string | undefined;
      if (req.anonRefreshToken) {
        anonUserId = await sessionUser(req.projectId, req.anonRefreshToken);
        const user = anonUserId ? await rt.identity.users.getUser({ projectId: req.projectId, userId: anonUserId }).catch(() => undefined) : undefined;
        if (!user?.user?.isAnonymous) throw statusError(400, "anon_refresh_token must be a refresh token of an anonymous user of this project.");
      }
      await cliLoginStore.insert(pool, {
        anonUserId,
        id: newId(),
        projectId: req.projectId,
        pollingCodeHash: hashSecret(pollingCode),
        loginCodeHash: hashSecret(loginCode),
        expiresAt,
      });
      return { pollingCode, loginCode, expiresAtMillis: BigInt(expiresAt.getTime()) };
    },

    async pollCliLogin(req) {
      const row = req.pollingCode ? await cliLoginStore.byPollingCode(pool, req.projectId, hashSecret(req.pollingCode)) : undefined;
      if (!row) throw knownError("INVALID_POLLING_CODE");
      if (row.delivered_at) return { status: CliLoginStatus.USED, refreshToken: "" };
      if (row.expires_at.getTime() <= Date.now()) return { status: CliLoginStatus.EXPIRED, refreshToken: "" };
      if (!row.completed_at) return { status: CliLoginStatus.WAITING, refreshToken: "" };
      const ciphertext = await cliLoginStore.deliver(pool, row.id);
      // Another poll took it a moment ago.
      if (!ciphertext) return { status: CliLoginStatus.USED, refreshToken: "" };
      return { status: CliLoginStatus.SUCCESS, refreshToken: await secrets.decrypt(ciphertext, context(row.id)) };
    },

    async completeCliLogin(req) {
      const mode = req.mode || "complete";
      if (mode === "check") {
        const row = await withTransaction(pool, (tx) => waitingLogin(tx, req.projectId, req.loginCode));
        return { cliSessionState: row.anon_user_id ? "anonymous" : "none", accessToken: "", refreshToken: "" };
      }
      if (mode === "claim-anon-session") {
        // A new session of the CLI's anonymous user for the browser, which then upgrades that user by signing up.
        const opened = await withTransaction(pool, async (tx) => {
          const row = await waitingLogin(tx, req.projectId, req.loginCode);
          if (!row.anon_user_id) throw statusError(400, "This CLI login was not started with an anonymous session.");
          return sessions.open(tx, { projectId: req.projectId, userId: row.anon_user_id, isSignIn: true });
        });
        const refreshed = await sessions.refresh(req.projectId, opened.refreshToken, "");
        return { cliSessionState: "", accessToken: refreshed.accessToken, refreshToken: opened.refreshToken };
      }
      if (mode !== "complete") throw statusError(400, 'mode must be "check", "claim-anon-session" or "complete".');
      const browser = req.refreshToken ? await sessionStore.byTokenHash(pool, hashSecret(req.refreshToken)) : undefined;
      if (!browser || browser.expires_at.getTime() <= Date.now()) throw statusError(400, "The refresh token is not valid; sign in again.");
      if (browser.project_id !== req.projectId) throw statusError(400, "The refresh token belongs to another project.");
      await withTransaction(pool, async (tx) => {
        const row = await waitingLogin(tx, req.projectId, req.loginCode);
        const opened = await sessions.open(tx, { projectId: req.projectId, userId: browser.user_id, isSignIn: true });
        await cliLoginStore.complete(tx, row.id, {
          userId: browser.user_id,
          sessionId: opened.sessionId,
          refreshTokenCiphertext: await secrets.encrypt(opened.refreshToken, context(row.id)),
        });
      });
      return { cliSessionState: "", accessToken: "", refreshToken: "" };
    },
  };
}
