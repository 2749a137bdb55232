import { AccessType } from "@vestibule/proto/teams_permissions/v1/team";
import { LoadingCache } from "@vestibule/shared/cache";
import type { ServiceClients } from "../clients.ts";
import type { ProjectCache } from "./caches.ts";
import type { ProjectOwnership } from "./request-auth.ts";

/** The teams of the `internal` project that one of its users belongs to (their owner teams). */
export async function ownerTeamIds(clients: Pick<ServiceClients, "teams">, internalUserId: string): Promise<string[]> {
  const { teams } = await clients.teams.listTeams({ projectId: "internal", caller: { accessType: AccessType.SERVER }, userId: internalUserId });
  return teams.map((t) => t.id);
}

/**
 * Project ownership (contract headers-and-auth.md §4): a user of the `internal` project administers a project iff they
 * are a member of its owner team (a team of `internal`). The owner team ids of each internal user are kept for `ttlMs`
 * and dropped by teams_permissions.membership.* / team.deleted events of the internal project on every replica, so a
 * dashboard request with an admin access token costs no RPC when nothing changed; a removed member loses access as
 * soon as the event arrives.
 */
export class OwnerTeamCache {
  private readonly cache: LoadingCache<ReadonlySet<string>>;

  constructor(
    private readonly clients: Pick<ServiceClients, "teams">,
    ttlMs = 60_000,
    maxEntries = 50_000,
  ) {
    this.cache = new LoadingCache<ReadonlySet<string>>(async (userId) => new Set(await ownerTeamIds(this.clients, userId)), { ttlMs, maxEntries });
  }

  teamIdsOf(userId: string): Promise<ReadonlySet<string>> {
    return this.cache.get(userId);
  }

  invalidateUser(userId: string): void {
    this.cache.invalidate(userId);
  }

  clear(): void {
    this.cache.clear();
  }

  /** The ProjectOwnership hook of request authentication. */
  ownership(projects: ProjectCache): ProjectOwnership {
    return async (internalUserId, projectId) => {
      const project = await projects.get(projectId);
      const ownerTeamId = project?.project.ownerTeamId;
      if (!ownerTeamId) return false;
      return (await this.teamIdsOf(internalUserId)).has(ownerTeamId);
    };
  }
}
