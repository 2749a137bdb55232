import { AccessType } from "@vestibule/proto/teams_permissions/v1/team";
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
  private readonly entries = new Map<string, { teamIds: ReadonlySet<string>; expiresAt: number }>();
  private readonly loading = new Map<string, Promise<ReadonlySet<string>>>();
  private readonly generations = new Map<string, number>();

  constructor(
    private readonly clients: Pick<ServiceClients, "teams">,
    private readonly ttlMs = 60_000,
    private readonly maxEntries = 50_000,
  ) {}

  async teamIdsOf(userId: string): Promise<ReadonlySet<string>> {
    const hit = this.entries.get(userId);
    if (hit && hit.expiresAt > Date.now()) return hit.teamIds;
    let p = this.loading.get(userId);
    if (!p) {
      const generation = this.generations.get(userId) ?? 0;
      p = ownerTeamIds(this.clients, userId).then((ids) => {
        const teamIds = new Set(ids);
        if ((this.generations.get(userId) ?? 0) === generation) {
          if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
          this.entries.set(userId, { teamIds, expiresAt: Date.now() + this.ttlMs });
        }
        return teamIds;
      });
      p.finally(() => this.loading.delete(userId)).catch(() => {});
      this.loading.set(userId, p);
    }
    return p;
  }

  invalidateUser(userId: string): void {
    this.generations.set(userId, (this.generations.get(userId) ?? 0) + 1);
    this.entries.delete(userId);
  }

  clear(): void {
    for (const id of new Set([...this.entries.keys(), ...this.loading.keys()])) this.invalidateUser(id);
    this.entries.clear();
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
