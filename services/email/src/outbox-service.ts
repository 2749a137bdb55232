import { create } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import { SenderConfigSchema } from "@vestibule/proto/email/v1/email";
import { SentEmailSchema, type EmailService, type SentEmail } from "@vestibule/proto/email/v1/email_service";
import { knownError, statusError } from "@vestibule/shared/errors";
import { isUuid } from "@vestibule/shared/ids";
import type { EmailRuntime } from "./runtime.ts";
import { emailStore, OUTBOX_CONDITIONS, type EmailRow } from "./store/email-store.ts";

export const DEFAULT_OUTBOX_LIMIT = 100;
export const MAX_OUTBOX_LIMIT = 1000;
/** The delivery capacity reported without a boost: 10,000 e-mails an hour, as the current backend reports it. */
export const BASE_RATE_PER_SECOND = 10_000 / 3600;
export const BOOST_MULTIPLIER = 4;
/** How long a capacity boost lasts. */
export const BOOST_SECONDS = 4 * 3600;

const HOUR = 3600_000;
const PERIODS = { hour: HOUR, day: 24 * HOUR, week: 7 * 24 * HOUR, month: 30 * 24 * HOUR } as const;

const millis = (d: Date | null | undefined): bigint => (d ? BigInt(d.getTime()) : 0n);

/** The wire form of an e-mail row (the e-mail log and the outbox). */
export function sentEmail(row: EmailRow): SentEmail {
  const sc = row.sender_config;
  return create(SentEmailSchema, {
    id: row.id,
    subject: row.subject,
    sentAtMillis: millis(row.sent_at),
    to: row.recipients,
    senderConfig: sc
      ? create(SenderConfigSchema, {
          type: sc.type,
          host: sc.host ?? "",
          port: sc.port ?? 0,
          username: sc.username ?? "",
          senderName: sc.sender_name ?? "",
          senderEmail: sc.sender_email ?? "",
        })
      : undefined,
    error: row.error ?? "",
    status: row.status,
    createdAtMillis: millis(row.created_at),
    attempts: row.attempts,
    template: row.template ?? "",
    notificationCategory: row.notification_category,
    userId: row.user_id ?? "",
    scheduledAtMillis: millis(row.scheduled_at),
    paused: row.paused,
    updatedAtMillis: millis(row.updated_at),
    nextAttemptAtMillis: row.status === "queued" ? millis(row.next_attempt_at) : 0n,
  });
}

/** Cursor of the outbox pages: the last row's created_at and id. */
function encodeCursor(row: EmailRow): string {
  return Buffer.from(JSON.stringify([row.created_at.getTime(), row.id])).toString("base64url");
}
function decodeCursor(cursor: string): { createdAt: Date; id: string } {
  try {
    const [at, id] = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as [unknown, unknown];
    if (typeof at === "number" && Number.isFinite(at) && typeof id === "string" && isUuid(id)) return { createdAt: new Date(at), id };
  } catch {
    // fall through
  }
  throw statusError(400, "Invalid cursor.");
}

/** The outbox status name of a row (the current SDK's email outbox statuses). */
export function outboxStatus(row: EmailRow): string {
  switch (row.status) {
    case "sent":
      return "sent";
    case "failed":
      return "server-error";
    case "cancelled":
      return "skipped";
    case "queued":
      if (row.paused) return "paused";
      return row.scheduled_at && row.scheduled_at.getTime() > Date.now() ? "scheduled" : "queued";
  }
}

type OutboxRpcs = Pick<
  ServiceImpl<typeof EmailService>,
  "getDeliveryInfo" | "activateCapacityBoost" | "listOutboxEmails" | "getOutboxEmail" | "updateOutboxEmail"
>;

/** The e-mail outbox, delivery statistics and capacity of the current SDK (2.8.108). */
export function createOutboxRpcs(rt: EmailRuntime): OutboxRpcs {
  const { pool } = rt.ctx;

  async function load(projectId: string, emailId: string): Promise<EmailRow> {
    const row = isUuid(emailId) ? await emailStore.getInProject(pool, projectId, emailId) : undefined;
    if (!row) throw statusError(404, "No email found with the given id.");
    return row;
  }

  return {
    async getDeliveryInfo(req) {
      const now = Date.now();
      const [hour, day, week, month] = await emailStore.sentSince(
        pool,
        req.projectId,
        Object.values(PERIODS).map((ms) => new Date(now - ms)),
      );
      const boost = await emailStore.activeBoost(pool, req.projectId);
      const multiplier = boost ? BOOST_MULTIPLIER : 1;
      const stats = (sent: number | undefined) => ({ sent: BigInt(sent ?? 0), bounced: 0n, markedAsSpam: 0n });
      return {
        hour: stats(hour),
        day: stats(day),
        week: stats(week),
        month: stats(month),
        capacity: {
          ratePerSecond: BASE_RATE_PER_SECOND * multiplier,
          boostMultiplier: multiplier,
          penaltyFactor: 1,
          isBoostActive: boost !== undefined,
          boostExpiresAtMillis: millis(boost),
        },
      };
    },

    async activateCapacityBoost(req) {
      const expires = await emailStore.startBoost(pool, req.projectId, BOOST_SECONDS);
      if (!expires) {
        const active = await emailStore.activeBoost(pool, req.projectId);
        throw knownError("EMAIL_CAPACITY_BOOST_ALREADY_ACTIVE", { expires_at: (active ?? new Date()).toISOString() });
      }
      return { expiresAtMillis: millis(expires) };
    },

    async listOutboxEmails(req) {
      if (req.limit < 0) throw statusError(400, "limit must not be negative.");
      const limit = Math.min(req.limit || DEFAULT_OUTBOX_LIMIT, MAX_OUTBOX_LIMIT);
      const conditions = [req.status, req.simpleStatus].filter((f) => f !== "").map((f) => OUTBOX_CONDITIONS[f] ?? "FALSE");
      const where = conditions.length > 0 ? conditions.map((c) => `(${c})`).join(" AND ") : "TRUE";
      const rows = await emailStore.page(pool, req.projectId, limit + 1, req.cursor ? decodeCursor(req.cursor) : undefined, where);
      const page = rows.slice(0, limit);
      return { emails: page.map(sentEmail), nextCursor: rows.length > limit ? encodeCursor(page[page.length - 1]!) : "" };
    },

    async getOutboxEmail(req) {
      return { email: sentEmail(await load(req.projectId, req.emailId)) };
    },

    async updateOutboxEmail(req) {
      const row = await load(req.projectId, req.emailId);
      const scheduledAt = req.scheduledAtMillis === undefined ? undefined : new Date(Number(req.scheduledAtMillis));
      const edited = await emailStore.editQueued(pool, req.projectId, row.id, { paused: req.isPaused, scheduledAt, cancel: req.cancel });
      if (!edited) {
        const now = await load(req.projectId, req.emailId);
        throw knownError("EMAIL_NOT_EDITABLE", { email_id: now.id, status: now.status === "queued" ? "sending" : outboxStatus(now) });
      }
      if (edited.status === "queued" && !edited.paused) rt.delivery?.kick();
      return { email: sentEmail(edited) };
    },
  };
}
