import { fromBinary } from "@bufbuild/protobuf";
import { ApiKeyDeletedSchema, ApiKeyUpdatedSchema } from "@vestibule/proto/auth/v1/events";
import type { Envelope } from "@vestibule/proto/event/v1/envelope";
import { UserCreatedSchema, UserDeletedSchema, UserUpdatedSchema } from "@vestibule/proto/identity/v1/events";
import { MembershipAddedSchema, MembershipRemovedSchema, TeamCreatedSchema, TeamDeletedSchema, TeamUpdatedSchema } from "@vestibule/proto/teams_permissions/v1/events";
import { decodeEnvelope, type EventBus, type Subscription } from "@vestibule/shared/events";
import type { ApiKeyCheckCache } from "./auth/api-key-checks.ts";
import type { KeyCache, ProjectCache } from "./auth/caches.ts";
import type { OwnerTeamCache } from "./auth/project-ownership.ts";
import type { TeamCache } from "./auth/team-cache.ts";
import type { JwksTokenVerifier } from "./auth/token-verifier.ts";
import type { UserCache } from "./auth/user-cache.ts";

/** The caches every gateway replica drops entries of when the owning service says they changed. */
export interface InvalidatedCaches {
  readonly projects: ProjectCache;
  readonly keys: KeyCache;
  readonly users: UserCache;
  readonly apiKeyChecks: ApiKeyCheckCache;
  readonly verifier: JwksTokenVerifier;
  readonly teamCache: TeamCache;
  readonly ownerTeams: OwnerTeamCache;
}

/**
 * Subscribes this replica (broadcast: every replica gets every event) to the events that change what it caches:
 * projects, key sets, users, API keys, signing keys, teams and internal-project memberships. A reset of the
 * subscription (the bus lost events) clears the cache it feeds.
 */
export async function subscribeCacheInvalidation(bus: EventBus, c: InvalidatedCaches): Promise<Subscription[]> {
  const subscriptions: Subscription[] = [];
  try {
    subscriptions.push(
      await bus.broadcast({
        subject: "identity.project.>",
        handler: (msg) => c.projects.invalidate(decodeEnvelope(msg.data).projectId),
        onReset: () => c.projects.clear(),
      }),
      await bus.broadcast({
        subject: "identity.api_key_set.>",
        handler: (msg) => c.keys.invalidateProject(decodeEnvelope(msg.data).projectId),
        onReset: () => c.keys.clear(),
      }),
      await bus.broadcast({
        subject: "identity.user.>",
        handler: (msg) => {
          const env = decodeEnvelope(msg.data);
          const payload = decodeUserEvent(env.type, env.payload);
          if (payload) c.users.invalidate(env.projectId, payload);
        },
        onReset: () => c.users.clear(),
      }),
      await bus.broadcast({
        subject: "auth.api_key.>",
        handler: (msg) => {
          const id = decodeApiKeyEvent(decodeEnvelope(msg.data));
          if (id) c.apiKeyChecks.invalidate(id);
        },
        onReset: () => c.apiKeyChecks.clear(),
      }),
      await bus.broadcast({
        subject: "auth.signing_key.>",
        handler: (msg) => c.verifier.invalidate(decodeEnvelope(msg.data).projectId),
        onReset: () => c.verifier.clear(),
      }),
      await bus.broadcast({
        subject: "teams_permissions.team.>",
        handler: (msg) => {
          const env = decodeEnvelope(msg.data);
          const teamId = decodeTeamEvent(env.type, env.payload);
          if (teamId) c.teamCache.invalidate(env.projectId, teamId);
          if (env.projectId === "internal" && env.type === "teams_permissions.team.deleted.v1") c.ownerTeams.clear();
        },
        onReset: () => {
          c.teamCache.clear();
          c.ownerTeams.clear();
        },
      }),
      await bus.broadcast({
        subject: "teams_permissions.membership.>",
        handler: (msg) => {
          const env = decodeEnvelope(msg.data);
          if (env.projectId !== "internal") return;
          const userId = decodeMembershipEvent(env.type, env.payload);
          if (userId) c.ownerTeams.invalidateUser(userId);
        },
        onReset: () => c.ownerTeams.clear(),
      }),
    );
  } catch (err) {
    await Promise.all(subscriptions.map((s) => s.stop()));
    throw err;
  }
  return subscriptions;
}

/** The key id an auth.api_key.* event is about. */
function decodeApiKeyEvent(env: Envelope): string | undefined {
  if (env.type === "auth.api_key.updated.v1") return fromBinary(ApiKeyUpdatedSchema, env.payload).apiKeyId;
  if (env.type === "auth.api_key.deleted.v1") return fromBinary(ApiKeyDeletedSchema, env.payload).apiKeyId;
  return undefined;
}

/** The user id an identity.user.* event is about. */
function decodeUserEvent(type: string, payload: Uint8Array): string | undefined {
  if (type === "identity.user.updated.v1") return fromBinary(UserUpdatedSchema, payload).user?.id;
  if (type === "identity.user.deleted.v1") return fromBinary(UserDeletedSchema, payload).userId;
  if (type === "identity.user.created.v1") return fromBinary(UserCreatedSchema, payload).user?.id;
  return undefined;
}

/** The team id a teams_permissions.team.* event is about. */
function decodeTeamEvent(type: string, payload: Uint8Array): string | undefined {
  if (type === "teams_permissions.team.updated.v1") return fromBinary(TeamUpdatedSchema, payload).team?.id;
  if (type === "teams_permissions.team.deleted.v1") return fromBinary(TeamDeletedSchema, payload).teamId;
  if (type === "teams_permissions.team.created.v1") return fromBinary(TeamCreatedSchema, payload).team?.id;
  return undefined;
}

/** The user id a teams_permissions.membership.* event is about. */
function decodeMembershipEvent(type: string, payload: Uint8Array): string | undefined {
  if (type === "teams_permissions.membership.added.v1") return fromBinary(MembershipAddedSchema, payload).userId;
  if (type === "teams_permissions.membership.removed.v1") return fromBinary(MembershipRemovedSchema, payload).userId;
  return undefined;
}
