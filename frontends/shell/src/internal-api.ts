/**
 * Calls of the signed-in project owner on the `internal` project that the SDK has no method for yet (listed as a gap
 * for @vestibule/js): GET/POST /internal/projects.
 */
import { CLIENT_VERSION, type CurrentUser } from "@vestibule/js";
import { ApiClient } from "@vestibule/sdk-core";
import type { RuntimeConfig } from "@vestibule/ui";

export interface OwnedProject {
  readonly id: string;
  readonly displayName: string;
  readonly description: string;
  readonly createdAt: Date;
  readonly isProductionMode: boolean;
}

function client(config: RuntimeConfig): ApiClient {
  return new ApiClient({ baseUrl: config.apiUrl, projectId: config.internalProjectId, publishableClientKey: config.internalPublishableClientKey, clientVersion: CLIENT_VERSION });
}

async function sessionOf(api: ApiClient, user: CurrentUser) {
  const t = await user.getAuthJson();
  return api.createSession({ refreshToken: t.refreshToken, accessToken: t.accessToken });
}

const projectFrom = (p: Record<string, any>): OwnedProject => ({
  id: p.id,
  displayName: p.display_name,
  description: p.description ?? "",
  createdAt: new Date(p.created_at_millis),
  isProductionMode: !!p.is_production_mode,
});

export async function listOwnedProjects(config: RuntimeConfig, user: CurrentUser): Promise<OwnedProject[]> {
  const api = client(config);
  const r = await api.json<{ items: Record<string, any>[] }>("/internal/projects", { session: await sessionOf(api, user) });
  return r.items.map(projectFrom);
}

export async function createProject(config: RuntimeConfig, user: CurrentUser, options: { displayName: string; description?: string; ownerTeamId: string }): Promise<OwnedProject> {
  const api = client(config);
  const p = await api.json<Record<string, any>>("/internal/projects", {
    method: "POST",
    body: { display_name: options.displayName, description: options.description || undefined, owner_team_id: options.ownerTeamId },
    session: await sessionOf(api, user),
  });
  return projectFrom(p);
}
