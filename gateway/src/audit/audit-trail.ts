import { randomUUID } from "node:crypto";
import type { FastifyBaseLogger, FastifyRequest } from "fastify";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { AuditActorSchema } from "@vestibule/proto/audit/v1/audit_service";
import type { RequestAuth } from "../auth/request-auth.ts";
import type { ServiceClients } from "../clients.ts";
import type { RouteResult, RouteSpec } from "../routes/route.ts";

/**
 * Paths (below /api/v1) whose admin/server calls are not writes worth auditing: event ingestion, read-only POSTs
 * (queries), and the sign-in flows (their own logs cover them). Server-created sessions (`POST /auth/sessions`,
 * impersonation) are audited.
 */
const NOT_AUDITED = [
  /^\/analytics\//,
  /^\/session-replays\//,
  /^\/internal\/analytics\//,
  /^\/auth\/(?!sessions$)/,
  /^\/internal\/audit-log/,
  // POSTs that only read: key checks, vault reads, previews, code checks.
  /\/check$/,
  /\/get$/,
  /\/render-email$/,
  /\/check-code$/,
  /\/accept\/details$/,
];

/** "team-memberships" → "team_membership", "users" → "user", "config" → "config". */
function singular(segment: string): string {
  const s = segment.replace(/-/g, "_");
  if (s.endsWith("ies")) return `${s.slice(0, -3)}y`;
  if (s.endsWith("sses") || !s.endsWith("s") || s.endsWith("ss")) return s;
  return s.slice(0, -1);
}

export interface AuditTarget {
  readonly action: string;
  readonly resourceType: string;
  readonly resourceId: string;
}

/**
 * What a route writes, from its path: the resource is the first literal segment after `internal`
 * (`/users/:user_id` → user), its id the path parameters joined by "/" (or the answer's `id` for a create, or the
 * project for `projects/current`), and the action `<resource>.<verb>` with the verb from the method (create, update,
 * delete) or the literals of an action endpoint (`/team-invitations/:id/accept` → team_invitation.accept,
 * `POST /team-invitations/send-code` → team_invitation.send_code, `POST /auth/sessions` → session.create).
 */
export function auditTarget(route: Pick<RouteSpec, "method" | "path">, params: unknown, out: RouteResult, projectId: string): AuditTarget {
  const segments = route.path.split("/").filter(Boolean);
  const literals = segments.filter((s) => !s.startsWith(":"));
  const headAt = (literals[0] === "internal" || literals[0] === "auth") && literals.length > 1 ? 1 : 0;
  const head = literals[headAt] ?? "root";
  const resourceType = singular(head);
  const p = (params ?? {}) as Record<string, unknown>;
  const paramValues = segments.filter((s) => s.startsWith(":")).map((s) => String(p[s.slice(1)] ?? ""));
  const answered = "json" in out ? (out.json as { id?: unknown } | null)?.id : undefined;
  let resourceId = paramValues.join("/");
  if (!resourceId) resourceId = typeof answered === "string" ? answered : segments.includes("current") || resourceType === "project" || resourceType === "config" ? projectId : "";
  const lastParam = segments.map((s) => s.startsWith(":")).lastIndexOf(true);
  // An action endpoint names its verb: after the last parameter, or (POST without parameters) after the resource.
  const trailing = (lastParam >= 0 ? segments.slice(lastParam + 1) : route.method === "POST" ? literals.slice(headAt + 1) : []).filter((s) => s !== "current");
  const verb = trailing.length
    ? trailing.join("_").replace(/-/g, "_")
    : { POST: "create", PUT: "update", PATCH: "update", DELETE: "delete", GET: "read" }[route.method];
  return { action: `${resourceType}.${verb}`, resourceType, resourceId };
}

/** Who made the request, from what authenticated it. */
export function auditActor(auth: RequestAuth, req: FastifyRequest, ip: string): MessageInitShape<typeof AuditActorSchema> {
  const userAgent = String(req.headers["user-agent"] ?? "").slice(0, 512);
  if (auth.adminUserId) return { type: "admin_user", id: auth.adminUserId, projectId: "internal", ip, userAgent };
  if (auth.viaOverrideKey) return { type: "development_override", id: "", projectId: "internal", ip, userAgent };
  return { type: auth.type === "admin" ? "admin_key" : "server_key", id: auth.keySetId ?? "", projectId: auth.projectId, ip, userAgent };
}

/**
 * Appends one audit entry after each successful admin or server write (see services/identity/src/audit/README.md
 * for why the gateway does it). The entry id is chosen here, so the retries below never add a second row. The reply
 * waits for the append: when the client has its answer, the entry exists. An append that still fails after the
 * retries is logged as an error (the write itself has committed and is answered normally).
 */
export class AuditTrail {
  constructor(
    private readonly clients: Pick<ServiceClients, "audit">,
    private readonly retryDelaysMs: readonly number[] = [100, 400, 1600],
  ) {}

  static audits(route: Pick<RouteSpec, "method" | "path">, auth: RequestAuth | null, status: number): auth is RequestAuth {
    if (!auth || auth.type === "client" || route.method === "GET") return false;
    if (status < 200 || status >= 300) return false;
    return !NOT_AUDITED.some((re) => re.test(route.path));
  }

  async record(opts: { route: Pick<RouteSpec, "method" | "path">; auth: RequestAuth; params: unknown; out: RouteResult; req: FastifyRequest; ip: string; log: FastifyBaseLogger }): Promise<void> {
    const { route, auth, req } = opts;
    const target = auditTarget(route, opts.params, opts.out, auth.projectId);
    const after = route.method === "DELETE" || !("json" in opts.out) ? "" : JSON.stringify(opts.out.json ?? null);
    const entry = {
      entryId: randomUUID(),
      projectId: auth.projectId,
      actor: auditActor(auth, req, opts.ip),
      action: target.action,
      resourceType: target.resourceType,
      resourceId: target.resourceId,
      afterJson: after,
      requestId: String(req.id),
      requestLine: `${route.method} ${req.url.split("?")[0]}`,
    };
    for (let attempt = 0; ; attempt++) {
      try {
        await this.clients.audit.appendAuditEntry(entry);
        return;
      } catch (err) {
        if (attempt >= this.retryDelaysMs.length) {
          opts.log.error({ err: (err as Error).message, audit_entry_id: entry.entryId, action: entry.action }, "audit entry could not be appended");
          return;
        }
        await new Promise((r) => setTimeout(r, this.retryDelaysMs[attempt]));
      }
    }
  }
}
