import { Type } from "typebox";
import { statusError } from "@vestibule/shared/errors";
import { Obj, OneOf, Optional, QueryInteger, Uuid } from "../../validation/index.ts";
import { outboxEmailView } from "../../views/email-outbox.ts";
import { defineRoute } from "../route.ts";

/** The current SDK's (2.8.108) e-mail outbox, delivery statistics and capacity boost. */

const SERVER = ["server", "admin"] as const;
const tags = ["Emails"];

const stats = (s: { sent: bigint; bounced: bigint; markedAsSpam: bigint } | undefined) => ({
  sent: Number(s?.sent ?? 0n),
  bounced: Number(s?.bounced ?? 0n),
  marked_as_spam: Number(s?.markedAsSpam ?? 0n),
});

export const emailDeliveryInfoRoute = defineRoute({
  method: "GET",
  path: "/emails/delivery-info",
  summary: "E-mails delivered in the last hour, day, week and month, and the delivery capacity",
  tags,
  access: SERVER,
  schemas: {},
  async handler({ auth, clients }) {
    const r = await clients.emails.getDeliveryInfo({ projectId: auth.projectId });
    const c = r.capacity!;
    return {
      json: {
        stats: { hour: stats(r.hour), day: stats(r.day), week: stats(r.week), month: stats(r.month) },
        capacity: {
          rate_per_second: c.ratePerSecond,
          boost_multiplier: c.boostMultiplier,
          penalty_factor: c.penaltyFactor,
          is_boost_active: c.isBoostActive,
          boost_expires_at: c.isBoostActive ? new Date(Number(c.boostExpiresAtMillis)).toISOString() : null,
        },
      },
    };
  },
});

export const emailCapacityBoostRoute = defineRoute({
  method: "POST",
  path: "/emails/capacity-boost",
  summary: "Multiply the delivery capacity for a while (EMAIL_CAPACITY_BOOST_ALREADY_ACTIVE while one is on)",
  tags,
  access: SERVER,
  schemas: { body: Obj({}) },
  async handler({ auth, clients }) {
    const { expiresAtMillis } = await clients.emails.activateCapacityBoost({ projectId: auth.projectId });
    return { json: { expires_at: new Date(Number(expiresAtMillis)).toISOString() } };
  },
});

const OUTBOX_STATUSES = ["paused", "preparing", "rendering", "render-error", "scheduled", "queued", "sending", "server-error", "skipped", "bounced", "delivery-delayed", "sent", "opened", "clicked", "marked-as-spam"] as const;

export const listOutboxEmailsRoute = defineRoute({
  method: "GET",
  path: "/emails/outbox",
  summary: "The project's e-mails, newest first (optionally by status or simple status)",
  tags,
  access: SERVER,
  schemas: {
    query: Obj({
      status: Optional(OneOf(OUTBOX_STATUSES)),
      simple_status: Optional(OneOf(["in-progress", "ok", "error"])),
      limit: Optional(QueryInteger({ minimum: 1, maximum: 1000 })),
      cursor: Optional(Type.String()),
    }),
  },
  async handler({ auth, query, clients }) {
    const r = await clients.emails.listOutboxEmails({
      projectId: auth.projectId,
      limit: query.limit ?? 0,
      cursor: query.cursor ?? "",
      status: query.status ?? "",
      simpleStatus: query.simple_status ?? "",
    });
    return { json: { items: r.emails.map(outboxEmailView), is_paginated: true, pagination: { next_cursor: r.nextCursor || null } } };
  },
});

export const getOutboxEmailRoute = defineRoute({
  method: "GET",
  path: "/emails/outbox/:id",
  summary: "One e-mail of the outbox",
  tags,
  access: SERVER,
  schemas: { params: Obj({ id: Uuid() }) },
  async handler({ auth, params, clients }) {
    const { email } = await clients.emails.getOutboxEmail({ projectId: auth.projectId, emailId: params.id });
    return { json: outboxEmailView(email!) };
  },
});

export const updateOutboxEmailRoute = defineRoute({
  method: "PATCH",
  path: "/emails/outbox/:id",
  summary: "Pause, resume, reschedule or cancel an e-mail that is not delivered yet",
  tags,
  access: SERVER,
  schemas: {
    params: Obj({ id: Uuid() }),
    body: Obj({
      is_paused: Optional(Type.Boolean()),
      scheduled_at_millis: Optional(Type.Integer({ minimum: 0 })),
      cancel: Optional(OneOf([true])),
      tsx_source: Optional(Type.String()),
      theme_id: Optional(Type.Union([Type.String(), Type.Null()])),
      to: Optional(Type.Unknown()),
      variables: Optional(Type.Record(Type.String(), Type.Unknown())),
      skip_deliverability_check: Optional(Type.Boolean()),
    }),
  },
  async handler({ auth, params, body, clients }) {
    if (body.tsx_source !== undefined || body.theme_id !== undefined || body.to !== undefined || body.variables !== undefined) {
      // Vestibule renders an e-mail for its recipient when the send is requested and keeps only the sealed result.
      throw statusError(400, "The content and recipients of an e-mail in the outbox cannot be edited; cancel it and send it again.");
    }
    const { email } = await clients.emails.updateOutboxEmail({
      projectId: auth.projectId,
      emailId: params.id,
      isPaused: body.is_paused,
      scheduledAtMillis: body.scheduled_at_millis === undefined ? undefined : BigInt(body.scheduled_at_millis),
      cancel: body.cancel === true,
    });
    return { json: outboxEmailView(email!) };
  },
});
