import type { DescMessage, MessageShape } from "@bufbuild/protobuf";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import type { Envelope } from "@vestibule/proto/event/v1/envelope";
import { UserCreatedSchema, UserDeletedSchema, UserUpdatedSchema } from "@vestibule/proto/identity/v1/events";
import {
  MembershipAddedSchema,
  MembershipRemovedSchema,
  PermissionGrantedSchema,
  PermissionRevokedSchema,
  TeamCreatedSchema,
  TeamDeletedSchema,
  TeamUpdatedSchema,
} from "@vestibule/proto/teams_permissions/v1/events";
import { PermissionScope } from "@vestibule/proto/teams_permissions/v1/permission";
import type { PoolClient } from "@vestibule/shared/db";
import { defineEvent, type EventDefinition } from "@vestibule/shared/events";
import { WEBHOOK_EVENT_TYPES, serverTeamView, serverUserView, type UserViewProject, type WebhookEventType } from "@vestibule/shared/views";
import { webhookStore } from "./store.ts";

/**
 * The published Stack webhook events (stack-shared `interface/webhooks.ts`): `{type, data}` with data in the REST
 * API's server-view shapes. `test.event` is what "send test event" delivers.
 */
export { WEBHOOK_EVENT_TYPES, type WebhookEventType };
export const TEST_EVENT_TYPE = "test.event";

export interface WebhookEvent {
  readonly projectId: string;
  readonly type: WebhookEventType;
  readonly data: Record<string, unknown>;
}

/** What a mapping may look up: the project facts of the user view; the consumer's transaction. */
export interface MapContext {
  readonly tx: PoolClient;
  readonly envelope: Envelope;
  userViewProject(projectId: string): Promise<UserViewProject>;
}

/** A platform event this module consumes, its durable consumer name (never renamed), and its webhook event. */
export interface WebhookSource<Desc extends DescMessage = DescMessage> {
  readonly event: EventDefinition<Desc>;
  readonly consumer: string;
  map(payload: MessageShape<Desc>, ctx: MapContext): Promise<WebhookEvent | undefined>;
  /**
   * For a mapping that only reads (keeps no state of its own, unlike the membership ones): the project whose endpoints
   * the event would go to ("" for none). An event of a project with no enabled endpoint is then acknowledged without a
   * transaction (issue 19: a sign-up publishes four such events).
   */
  readonly statelessProjectOf?: (payload: MessageShape<Desc>, envelope: Envelope) => string;
}

function source<Desc extends DescMessage>(
  type: string,
  schema: Desc,
  consumer: string,
  map: WebhookSource<Desc>["map"],
  statelessProjectOf?: WebhookSource<Desc>["statelessProjectOf"],
): WebhookSource {
  return { event: defineEvent(type, schema), consumer: `email-webhooks-${consumer}`, map, statelessProjectOf } as unknown as WebhookSource;
}

const occurredAt = (e: Envelope) => (e.occurredAt ? timestampDate(e.occurredAt) : new Date());
const projectOf = (e: Envelope, p: { projectId?: string }) => p.projectId || e.projectId;

export const WEBHOOK_SOURCES: readonly WebhookSource[] = [
  source("identity.user.created.v1", UserCreatedSchema, "user-created", async ({ user }, ctx) =>
    user ? { projectId: user.projectId, type: "user.created", data: serverUserView(user, undefined, await ctx.userViewProject(user.projectId)) } : undefined,
  ({ user }) => user?.projectId ?? "",
  ),
  source("identity.user.updated.v1", UserUpdatedSchema, "user-updated", async ({ user }, ctx) =>
    user ? { projectId: user.projectId, type: "user.updated", data: serverUserView(user, undefined, await ctx.userViewProject(user.projectId)) } : undefined,
  ({ user }) => user?.projectId ?? "",
  ),
  source("identity.user.deleted.v1", UserDeletedSchema, "user-deleted", async (p, ctx) => {
    const projectId = projectOf(ctx.envelope, p);
    const teams = await webhookStore.teamsOfDeletedUser(ctx.tx, projectId, p.userId, occurredAt(ctx.envelope));
    return { projectId, type: "user.deleted", data: { id: p.userId, teams: teams.map((id) => ({ id })) } };
  }),
  source("teams_permissions.team.created.v1", TeamCreatedSchema, "team-created", async ({ team }) =>
    team ? { projectId: team.projectId, type: "team.created", data: serverTeamView(team) } : undefined,
  ({ team }) => team?.projectId ?? "",
  ),
  source("teams_permissions.team.updated.v1", TeamUpdatedSchema, "team-updated", async ({ team }) =>
    team ? { projectId: team.projectId, type: "team.updated", data: serverTeamView(team) } : undefined,
  ({ team }) => team?.projectId ?? "",
  ),
  source("teams_permissions.team.deleted.v1", TeamDeletedSchema, "team-deleted", async (p, ctx) => {
    const projectId = projectOf(ctx.envelope, p);
    await webhookStore.teamRemoved(ctx.tx, projectId, p.teamId, occurredAt(ctx.envelope));
    return { projectId, type: "team.deleted", data: { id: p.teamId } };
  }),
  source("teams_permissions.membership.added.v1", MembershipAddedSchema, "membership-added", async (p, ctx) => {
    const projectId = projectOf(ctx.envelope, p);
    await webhookStore.memberAdded(ctx.tx, projectId, p.teamId, p.userId);
    return { projectId, type: "team_membership.created", data: { team_id: p.teamId, user_id: p.userId } };
  }),
  source("teams_permissions.membership.removed.v1", MembershipRemovedSchema, "membership-removed", async (p, ctx) => {
    const projectId = projectOf(ctx.envelope, p);
    await webhookStore.memberRemoved(ctx.tx, projectId, p.teamId, p.userId, occurredAt(ctx.envelope));
    return { projectId, type: "team_membership.deleted", data: { team_id: p.teamId, user_id: p.userId } };
  }),
  // Project permissions have no webhook event in the published product; only team grants are sent.
  source("teams_permissions.permission.granted.v1", PermissionGrantedSchema, "permission-granted", async (p, ctx) =>
    p.scope === PermissionScope.TEAM && p.teamId
      ? { projectId: projectOf(ctx.envelope, p), type: "team_permission.created", data: { id: p.permissionId, user_id: p.userId, team_id: p.teamId } }
      : undefined,
  (p, envelope) => (p.scope === PermissionScope.TEAM && p.teamId ? projectOf(envelope, p) : ""),
  ),
  source("teams_permissions.permission.revoked.v1", PermissionRevokedSchema, "permission-revoked", async (p, ctx) =>
    p.scope === PermissionScope.TEAM && p.teamId
      ? { projectId: projectOf(ctx.envelope, p), type: "team_permission.deleted", data: { id: p.permissionId, user_id: p.userId, team_id: p.teamId } }
      : undefined,
  (p, envelope) => (p.scope === PermissionScope.TEAM && p.teamId ? projectOf(envelope, p) : ""),
  ),
];
