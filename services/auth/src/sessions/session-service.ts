import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { Code, type ServiceImpl } from "@connectrpc/connect";
import { SessionSchema, type Session } from "@vestibule/proto/auth/v1/session";
import { RefreshSessionErrorSchema, SessionService, type RefreshSessionError, type RefreshSessionResultSchema } from "@vestibule/proto/auth/v1/session_service";
import { knownError, statusError, toItemError } from "@vestibule/shared/errors";
import type { Logger } from "@vestibule/shared/log";
import { isUuid } from "@vestibule/shared/ids";
import type { AuthRuntime } from "../runtime.ts";
import { impersonationTickets } from "./impersonation-tickets.ts";
import { MAX_SESSION_LIFETIME_MS, type RefreshOutcome } from "./sessions.ts";
import type { SessionRow } from "./store/session-store.ts";

function sessionMessage(row: SessionRow): Session {
  const info = row.last_used_ip_info;
  return create(SessionSchema, {
    id: row.id,
    userId: row.user_id,
    createdAtMillis: BigInt(row.created_at.getTime()),
    isImpersonation: row.is_impersonation,
    lastUsedAtMillis: BigInt(row.last_used_at?.getTime() ?? 0),
    expiresAtMillis: BigInt(row.expires_at.getTime()),
    lastUsedIpInfo: info
      ? {
          ip: info.ip,
          countryCode: info.countryCode ?? undefined,
          regionCode: info.regionCode ?? undefined,
          cityName: info.cityName ?? undefined,
          latitude: info.latitude ?? undefined,
          longitude: info.longitude ?? undefined,
          tzIdentifier: info.tzIdentifier ?? undefined,
        }
      : undefined,
  });
}

/** Most refreshes one RefreshSessions call may carry. */
export const MAX_REFRESH_BATCH = 1000;

/**
 * A failed item of RefreshSessions: what the ConnectError of a single RefreshSession would have carried (code, message,
 * known-error or status-error detail). Unexpected errors are logged here, like the RPC server does for whole calls,
 * and travel as a bare Internal.
 */
function refreshError(err: unknown, log: Logger): RefreshSessionError {
  const item = toItemError(err);
  if (item.code === Code.Internal || item.code === Code.Unknown) {
    log.error({ err, method: "vestibule.auth.v1.SessionService/RefreshSessions" }, "refresh of a batch item failed");
  }
  return create(RefreshSessionErrorSchema, item);
}

function refreshResult(o: RefreshOutcome, log: Logger): MessageInitShape<typeof RefreshSessionResultSchema> {
  if ("error" in o) return { outcome: { case: "error", value: refreshError(o.error, log) } };
  const r = o.ok;
  return { outcome: { case: "ok", value: { accessToken: r.accessToken, refreshToken: r.refreshToken ?? "", sessionId: r.sessionId, userId: r.userId } } };
}

export function createSessionService(rt: AuthRuntime): ServiceImpl<typeof SessionService> {
  const { sessions, settings, keys } = rt;

  return {
    async createSession(req) {
      const expiresIn = Number(req.expiresInMillis);
      if (expiresIn < 0 || expiresIn > MAX_SESSION_LIFETIME_MS) {
        throw statusError(400, `expires_in_millis must be between 0 and ${MAX_SESSION_LIFETIME_MS}.`);
      }
      const project = await settings.get(req.projectId);
      if (!isUuid(req.userId)) throw knownError("USER_ID_DOES_NOT_EXIST", { user_id: req.userId });
      // USER_ID_DOES_NOT_EXIST (a body id) for unknown users, raised by identity.
      const { user } = await rt.identity.users.getUser({ projectId: req.projectId, userId: req.userId, idFromBody: true });
      const session = await sessions.open(rt.ctx.pool, {
        projectId: req.projectId,
        userId: user!.id,
        expiresInMillis: expiresIn,
        isImpersonation: req.isImpersonation,
        isSignIn: false,
      });
      return { result: await sessions.result(project, user!, session, false) };
    },

    async refreshSession(req) {
      const r = await sessions.refresh(req.projectId, req.refreshToken, req.client?.ip ?? "");
      return { accessToken: r.accessToken, refreshToken: r.refreshToken ?? "", sessionId: r.sessionId, userId: r.userId };
    },

    async refreshSessions(req) {
      if (req.requests.length > MAX_REFRESH_BATCH) throw statusError(400, `At most ${MAX_REFRESH_BATCH} refreshes per call.`);
      const outcomes = await sessions.refreshMany(req.requests.map((r) => ({ projectId: r.projectId, refreshToken: r.refreshToken, ip: r.client?.ip ?? "" })));
      return { results: outcomes.map((o) => refreshResult(o, rt.ctx.log)) };
    },

    async listSessions(req) {
      const rows = await sessions.list(req.projectId, req.userId, req.includeImpersonation);
      return { sessions: rows.map(sessionMessage) };
    },

    async revokeSession(req) {
      await sessions.revoke(req.projectId, req.sessionId, req.userId || undefined);
      return {};
    },

    async revokeUserSessions(req) {
      if (!isUuid(req.userId)) return { revoked: 0 };
      return { revoked: await sessions.revokeAll(req.projectId, req.userId, req.exceptSessionId || undefined) };
    },

    async getVerificationKeys(req) {
      await settings.get(req.projectId); // PROJECT_NOT_FOUND for unknown projects: no keys are made for them
      const [main, anonymous] = await Promise.all([
        keys.publishedKeys(req.projectId, false),
        req.includeAnonymous ? keys.publishedKeys(req.projectId, true) : undefined,
      ]);
      return { jwksJson: JSON.stringify({ keys: main }), anonymousJwksJson: anonymous ? JSON.stringify({ keys: anonymous }) : "" };
    },

    async touchSessions(req) {
      await sessions.touch(
        req.touches.map((t) => ({ projectId: t.projectId, sessionId: t.sessionId, at: new Date(Number(t.atMillis)), ip: t.ip })),
      );
      return {};
    },

    async rotateSigningKey(req) {
      const project = await settings.get(req.projectId);
      return { kid: await keys.rotate(req.projectId, project.accessTokenLifetimeSeconds) };
    },

    ...impersonationTickets(rt),
  };
}
