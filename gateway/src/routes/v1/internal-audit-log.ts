import { Readable } from "node:stream";
import { Type } from "typebox";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { AuditEntry, ListAuditEntriesRequestSchema } from "@vestibule/proto/audit/v1/audit_service";
import { Obj, Optional, QueryInteger } from "../../validation/index.ts";
import { defineRoute } from "../route.ts";
import type { ServiceClients } from "../../clients.ts";

/**
 * The audit log of a project (admin): every admin and server-key write, newest first (services/identity/src/audit/).
 * `GET /internal/audit-log` pages with `next_cursor`; `/internal/audit-log/export` streams every matching entry as
 * JSON lines (application/x-ndjson), fetched from the service page by page so memory stays bounded.
 */

const ADMIN = ["admin"] as const;
const Millis = QueryInteger({ minimum: 0, maximum: 8_640_000_000_000_000 });
const Text = Type.String({ minLength: 1, maxLength: 200 });
const Filters = {
  actor_type: Optional(Type.Union([Type.Literal("admin_user"), Type.Literal("admin_key"), Type.Literal("server_key"), Type.Literal("development_override")])),
  actor_id: Optional(Text),
  resource_type: Optional(Text),
  resource_id: Optional(Text),
  action: Optional(Text),
  since: Optional(Millis),
  until: Optional(Millis),
};

interface FilterQuery {
  actor_type?: string;
  actor_id?: string;
  resource_type?: string;
  resource_id?: string;
  action?: string;
  since?: number;
  until?: number;
}

function listRequest(projectId: string, q: FilterQuery, cursor: string | undefined, limit: number): MessageInitShape<typeof ListAuditEntriesRequestSchema> {
  return {
    projectId,
    actorType: q.actor_type,
    actorId: q.actor_id,
    resourceType: q.resource_type,
    resourceId: q.resource_id,
    action: q.action,
    sinceMillis: q.since === undefined ? undefined : BigInt(q.since),
    untilMillis: q.until === undefined ? undefined : BigInt(q.until),
    cursor,
    limit,
  };
}

const parseJson = (s: string): unknown => (s === "" ? null : (JSON.parse(s) as unknown));

/** The REST view of one entry. */
export function auditEntryView(e: AuditEntry) {
  return {
    id: e.id,
    project_id: e.projectId,
    seq: Number(e.seq),
    occurred_at_millis: Number(e.occurredAtMillis),
    actor: { type: e.actor?.type ?? "", id: e.actor?.id ?? "", project_id: e.actor?.projectId ?? "", ip: e.actor?.ip ?? "", user_agent: e.actor?.userAgent ?? "" },
    action: e.action,
    resource_type: e.resourceType,
    resource_id: e.resourceId,
    before: parseJson(e.beforeJson),
    after: parseJson(e.afterJson),
    request_id: e.requestId,
    request_line: e.requestLine,
    prev_hash: e.prevHash,
    hash: e.hash,
  };
}

export const listAuditLogRoute = defineRoute({
  method: "GET",
  path: "/internal/audit-log",
  summary: "List the project's audit log, newest first (cursor-paged)",
  tags: ["Audit log (admin)"],
  access: ADMIN,
  schemas: { query: Obj({ ...Filters, cursor: Optional(Text), limit: Optional(QueryInteger({ minimum: 1, maximum: 500 })) }) },
  async handler({ auth, query, clients }) {
    const res = await clients.audit.listAuditEntries(listRequest(auth.projectId, query, query.cursor, query.limit ?? 50));
    return { json: { items: res.entries.map(auditEntryView), pagination: { next_cursor: res.nextCursor || null } } };
  },
});

async function* exportLines(clients: ServiceClients, projectId: string, q: FilterQuery, first: { entries: AuditEntry[]; nextCursor: string }) {
  let page = first;
  for (;;) {
    for (const e of page.entries) yield `${JSON.stringify(auditEntryView(e))}\n`;
    if (!page.nextCursor) return;
    page = await clients.audit.listAuditEntries(listRequest(projectId, q, page.nextCursor, 500));
  }
}

export const exportAuditLogRoute = defineRoute({
  method: "GET",
  path: "/internal/audit-log/export",
  summary: "Export the project's audit log as JSON lines (streamed, newest first)",
  tags: ["Audit log (admin)"],
  access: ADMIN,
  schemas: { query: Obj(Filters) },
  async handler({ auth, query, clients, reply }) {
    // The first page is read before answering, so a bad filter is still a clean 4xx.
    const first = await clients.audit.listAuditEntries(listRequest(auth.projectId, query, undefined, 500));
    reply
      .header("content-type", "application/x-ndjson; charset=utf-8")
      .header("content-disposition", `attachment; filename="audit-log-${auth.projectId}.jsonl"`)
      .send(Readable.from(exportLines(clients, auth.projectId, query, first)));
    return { sent: true };
  },
});
