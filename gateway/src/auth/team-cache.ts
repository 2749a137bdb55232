import type { Team } from "@vestibule/proto/teams_permissions/v1/team";
import type { ServiceClients } from "../clients.ts";

/**
 * Teams by (project, id), for the `selected_team` object of user views: `GET /users/me` of a user with a selected team
 * costs no RPC when nothing changed. teams_permissions.team.* events drop entries on every replica; a TTL bounds the
 * damage of a missed event. Unknown (deleted) teams are remembered briefly as null. Several teams are fetched with
 * one BatchGetTeams call.
 */
export class TeamCache {
  private readonly entries = new Map<string, { team: Team | null; expiresAt: number }>();
  private readonly generations = new Map<string, number>();

  constructor(
    private readonly clients: Pick<ServiceClients, "teams">,
    private readonly ttlMs = 5 * 60_000,
    private readonly negativeTtlMs = 5_000,
    private readonly maxEntries = 100_000,
  ) {}

  private static key(projectId: string, teamId: string): string {
    return `${projectId}|${teamId}`;
  }

  async get(projectId: string, teamId: string): Promise<Team | null> {
    return (await this.getMany(projectId, [teamId])).get(teamId) ?? null;
  }

  /** The teams found (deleted or unknown ids are absent). */
  async getMany(projectId: string, teamIds: readonly string[]): Promise<Map<string, Team>> {
    const out = new Map<string, Team>();
    const missing: string[] = [];
    const now = Date.now();
    for (const id of new Set(teamIds)) {
      const hit = this.entries.get(TeamCache.key(projectId, id));
      if (hit && hit.expiresAt > now) {
        if (hit.team) out.set(id, hit.team);
      } else {
        missing.push(id);
      }
    }
    if (missing.length === 0) return out;
    const generations = missing.map((id) => this.generations.get(TeamCache.key(projectId, id)) ?? 0);
    const { teams } = await this.clients.teams.batchGetTeams({ projectId, teamIds: missing });
    const found = new Map(teams.map((t) => [t.id, t]));
    missing.forEach((id, i) => {
      const team = found.get(id) ?? null;
      if (team) out.set(id, team);
      const key = TeamCache.key(projectId, id);
      if ((this.generations.get(key) ?? 0) === generations[i]) this.store(key, team);
    });
    return out;
  }

  /** Stores a team received in an RPC answer or an event (newer versions only). */
  put(team: Team): void {
    const key = TeamCache.key(team.projectId, team.id);
    const current = this.entries.get(key)?.team;
    if (current && current.version > team.version) return;
    this.bump(key);
    this.store(key, team);
  }

  invalidate(projectId: string, teamId: string): void {
    const key = TeamCache.key(projectId, teamId);
    this.bump(key);
    this.entries.delete(key);
  }

  clear(): void {
    for (const key of this.entries.keys()) this.bump(key);
    this.entries.clear();
  }

  private store(key: string, team: Team | null): void {
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { team, expiresAt: Date.now() + (team ? this.ttlMs : this.negativeTtlMs) });
  }

  private bump(key: string): void {
    this.generations.set(key, (this.generations.get(key) ?? 0) + 1);
  }
}
