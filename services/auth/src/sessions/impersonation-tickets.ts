import type { ServiceImpl } from "@connectrpc/connect";
import type { SessionService } from "@vestibule/proto/auth/v1/session_service";
import { withTransaction } from "@vestibule/shared/db";
import { knownError, statusError } from "@vestibule/shared/errors";
import { isUuid } from "@vestibule/shared/ids";
import { hashSecret, randomCode } from "@vestibule/shared/secrets";
import type { AuthRuntime } from "../runtime.ts";
import { MAX_SESSION_LIFETIME_MS } from "./sessions.ts";
import { impersonationTicketStore } from "./store/impersonation-ticket-store.ts";

/** How long a ticket can be exchanged: the admin's click opens the app's page right away. */
export const IMPERSONATION_TICKET_LIFETIME_MS = 60_000;
/** Lifetime of the impersonation session a ticket opens unless the admin asks otherwise. */
export const IMPERSONATION_SESSION_DEFAULT_MS = 3_600_000;

export const IMPERSONATION_TICKET_INVALID_MESSAGE =
  "This link to open the app as a user has expired or was already used. Ask for a new one from the dashboard.";

type TicketMethods = Pick<ServiceImpl<typeof SessionService>, "createImpersonationTicket" | "exchangeImpersonationTicket">;

/**
 * Impersonation tickets ("Open the app as this user", issue 21): an admin gets a 45-character ticket for a user; the
 * app's handler page exchanges it once, within 60 seconds, for a new impersonation session of that user. Only the
 * SHA-256 is stored and the row is deleted by the statement that takes it. Exchanges are rate limited per client IP
 * like other code checks: an unknown ticket counts as a failed guess.
 */
export function impersonationTickets(rt: AuthRuntime): TicketMethods {
  const { sessions, settings, limiter } = rt;
  const { pool } = rt.ctx;

  return {
    async createImpersonationTicket(req) {
      const lifetime = Number(req.sessionExpiresInMillis) || IMPERSONATION_SESSION_DEFAULT_MS;
      if (lifetime < 0 || lifetime > MAX_SESSION_LIFETIME_MS) throw statusError(400, `expires_in_millis must be between 0 and ${MAX_SESSION_LIFETIME_MS}.`);
      await settings.get(req.projectId);
      if (!isUuid(req.userId)) throw knownError("USER_ID_DOES_NOT_EXIST", { user_id: req.userId });
      const { user } = await rt.identity.users.getUser({ projectId: req.projectId, userId: req.userId, idFromBody: true });
      const ticket = randomCode(45);
      const expiresAt = new Date(Date.now() + IMPERSONATION_TICKET_LIFETIME_MS);
      await impersonationTicketStore.insert(pool, { ticketHash: hashSecret(ticket), projectId: req.projectId, userId: user!.id, sessionLifetimeMs: lifetime, expiresAt });
      return { ticket, expiresAtMillis: BigInt(expiresAt.getTime()) };
    },

    async exchangeImpersonationTicket(req) {
      const project = await settings.get(req.projectId);
      const invalid = () => statusError(400, IMPERSONATION_TICKET_INVALID_MESSAGE);
      const ip = req.client?.ip ?? "";
      return limiter.guard({ method: "impersonation_ticket", projectId: req.projectId, ip: ip || undefined }, async (attempt) => {
        const opened = await withTransaction(pool, async (tx) => {
          const taken = req.ticket ? await impersonationTicketStore.take(tx, req.projectId, hashSecret(req.ticket)) : undefined;
          if (!taken) return undefined;
          attempt.success();
          // A user deleted since the ticket was made: the ticket is gone too, and no session is opened.
          const found = await rt.identity.users.getUser({ projectId: req.projectId, userId: taken.userId }).catch(() => undefined);
          if (!found?.user) return undefined;
          const session = await sessions.open(tx, {
            projectId: req.projectId,
            userId: taken.userId,
            expiresInMillis: taken.sessionLifetimeMs,
            isImpersonation: true,
            isSignIn: false,
            ip: ip || undefined,
          });
          return { user: found.user, session };
        });
        if (!opened) throw invalid();
        return { result: await sessions.result(project, opened.user, opened.session, false) };
      });
    },
  };
}
