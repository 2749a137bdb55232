import { Type } from "typebox";
import { Obj, Optional, Uuid } from "../../validation/index.ts";
import { defineRoute } from "../route.ts";

/**
 * "Open the app as this user" (issue 21): a project admin asks for a single-use ticket for a user; the app's handler
 * page `<trusted domain><handlerPath>/impersonate?ticket=<ticket>` exchanges it within 60 seconds for the tokens of a
 * new impersonation session. The refresh token never travels in an address.
 */
export const createImpersonationTicketRoute = defineRoute({
  method: "POST",
  path: "/auth/impersonation-tickets",
  summary: "A single-use, 60-second ticket that opens an impersonation session of a user in the app (admins only)",
  tags: ["Sessions"],
  access: ["admin"],
  schemas: {
    body: Obj({
      user_id: Uuid(),
      // Lifetime of the impersonation session; default 1 hour.
      expires_in_millis: Optional(Type.Integer({ minimum: 0, maximum: 31_708_800_000 })),
    }),
  },
  async handler({ auth, body, clients }) {
    const res = await clients.sessions.createImpersonationTicket({
      projectId: auth.projectId,
      userId: body.user_id,
      sessionExpiresInMillis: BigInt(body.expires_in_millis ?? 0),
    });
    return { json: { ticket: res.ticket, expires_at_millis: Number(res.expiresAtMillis) } };
  },
});

export const exchangeImpersonationTicketRoute = defineRoute({
  method: "POST",
  path: "/auth/impersonation-tickets/exchange",
  summary: "Exchange an impersonation ticket once for the tokens of the impersonation session",
  tags: ["Sessions"],
  access: ["client", "server", "admin"],
  schemas: { body: Obj({ ticket: Type.String({ maxLength: 200 }) }) },
  async handler({ auth, body, clients, clientIp }) {
    const { result } = await clients.sessions.exchangeImpersonationTicket({ projectId: auth.projectId, ticket: body.ticket, client: { ip: clientIp } });
    return { json: { access_token: result!.accessToken, refresh_token: result!.refreshToken, user_id: result!.userId } };
  },
});
