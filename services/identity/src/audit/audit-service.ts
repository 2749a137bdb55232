import type { ServiceImpl } from "@connectrpc/connect";
import { AuditService, type AuditEntry } from "@vestibule/proto/audit/v1/audit_service";
import { withTransaction } from "@vestibule/shared/db";
import { statusError } from "@vestibule/shared/errors";
import { isUuid } from "@vestibule/shared/ids";
import type { ServiceContext } from "@vestibule/shared/service";
import { withoutSecrets } from "./domain/chain.ts";
import { auditStore, type AuditRow } from "./store/audit-store.ts";

const ACTOR_TYPES = new Set(["admin_user", "admin_key", "server_key", "development_override"]);

function entryView(r: AuditRow): Omit<AuditEntry, "$typeName"> {
  return {
    id: r.id,
    projectId: r.project_id,
    seq: BigInt(r.seq),
    occurredAtMillis: BigInt(r.occurred_at.getTime()),
    actor: { $typeName: "vestibule.audit.v1.AuditActor", type: r.actor_type, id: r.actor_id, projectId: r.actor_project_id, ip: r.ip, userAgent: r.user_agent },
    action: r.action,
    resourceType: r.resource_type,
    resourceId: r.resource_id,
    beforeJson: r.before === null || r.before === undefined ? "" : JSON.stringify(r.before),
    afterJson: r.after === null || r.after === undefined ? "" : JSON.stringify(r.after),
    requestId: r.request_id,
    requestLine: r.request_line,
    prevHash: r.prev_hash,
    hash: r.hash,
  };
}

/** Page cursor: the seq of the page's last (oldest) row. */
export function encodeAuditCursor(seq: string): string {
  return Buffer.from(`seq:${seq}`).toString("base64url");
}

function decodeAuditCursor(cursor: string): bigint {
  const m = /^seq:(\d{1,18})$/.exec(Buffer.from(cursor, "base64url").toString("utf8"));
  if (!m) throw statusError(400, "Invalid cursor");
  return BigInt(m[1]!);
}

function parseAfter(json: string): unknown {
  if (json === "") return null;
  try {
    return withoutSecrets(JSON.parse(json));
  } catch {
    throw statusError(400, "after_json is not JSON");
  }
}

/** AuditService: appends (gateway, after each admin/server write) and filtered reads (admin routes). */
export function createAuditService(ctx: ServiceContext): ServiceImpl<typeof AuditService> {
  return {
    async appendAuditEntry(req) {
      if (!isUuid(req.entryId)) throw statusError(400, "entry_id must be a UUID");
      if (!req.projectId || !req.action || !req.resourceType) throw statusError(400, "project_id, action and resource_type are required");
      const actor = req.actor;
      if (!actor || !ACTOR_TYPES.has(actor.type)) throw statusError(400, "actor.type must be admin_user, admin_key, server_key or development_override");
      const after = parseAfter(req.afterJson);
      const { row, appended } = await withTransaction(ctx.pool, (tx) =>
        auditStore.append(tx, {
          id: req.entryId.toLowerCase(),
          projectId: req.projectId,
          occurredAt: new Date(),
          actor: { type: actor.type, id: actor.id, projectId: actor.projectId, ip: actor.ip, userAgent: actor.userAgent.slice(0, 512) },
          action: req.action,
          resourceType: req.resourceType,
          resourceId: req.resourceId,
          after,
          requestId: req.requestId,
          requestLine: req.requestLine.slice(0, 2048),
        }),
      );
      return { entry: entryView(row), appended };
    },

    async listAuditEntries(req) {
      if (!req.projectId) throw statusError(400, "project_id is required");
      if (req.actorType !== undefined && req.actorType !== "" && !ACTOR_TYPES.has(req.actorType)) {
        throw statusError(400, "actor_type must be admin_user, admin_key, server_key or development_override");
      }
      const limit = req.limit <= 0 ? 50 : Math.min(req.limit, 500);
      const rows = await auditStore.list(
        ctx.pool,
        {
          projectId: req.projectId,
          actorType: req.actorType || undefined,
          actorId: req.actorId || undefined,
          resourceType: req.resourceType || undefined,
          resourceId: req.resourceId || undefined,
          action: req.action || undefined,
          since: req.sinceMillis !== undefined ? new Date(Number(req.sinceMillis)) : undefined,
          until: req.untilMillis !== undefined ? new Date(Number(req.untilMillis)) : undefined,
          beforeSeq: req.cursor ? decodeAuditCursor(req.cursor) : undefined,
        },
        limit + 1,
      );
      const page = rows.slice(0, limit);
      return {
        entries: page.map(entryView),
        nextCursor: rows.length > limit ? encodeAuditCursor(String(page[page.length - 1]!.seq)) : "",
      };
    },
  };
}
