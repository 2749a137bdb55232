/**
 * `npm start` in development mode: runs the development identity provider, points the shared OAuth keys of every
 * provider type at it, and enables Google, GitHub, Microsoft and Spotify sign-in (shared keys) on the `internal` and
 * demo projects once, so a newcomer can click "Sign in with Google" with nothing configured. Production mode never
 * calls this.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ProjectService } from "@vestibule/proto/identity/v1/project_service";
import { createServiceClient } from "@vestibule/shared/rpc";
import { stateDir } from "../paths.ts";
import { startDevIdentityProvider, type DevIdentityProvider } from "./index.ts";

export const DEV_IDP_DEFAULT_PORT = 8117;
export const DEV_SHARED_PROVIDERS = ["google", "github", "microsoft", "spotify"] as const;

export async function startDevIdp(env: Readonly<Record<string, string | undefined>>, host: string): Promise<DevIdentityProvider> {
  const port = Number(env.VESTIBULE_DEV_IDP_PORT || DEV_IDP_DEFAULT_PORT);
  try {
    return await startDevIdentityProvider({ host, port });
  } catch (err) {
    throw new Error(`the development identity provider cannot listen on ${host}:${port} (${(err as Error).message}); set VESTIBULE_DEV_IDP_PORT`);
  }
}

/** Enables the shared providers on projects that have no OAuth provider yet, once per state directory and project. */
export async function seedDevProviders(opts: { identityUrl: string; serviceSecret: string; projectIds: readonly string[]; stateFile?: string }): Promise<string[]> {
  const file = opts.stateFile ?? join(stateDir, "dev-oauth.json");
  const done = new Set<string>(existsSync(file) ? ((JSON.parse(readFileSync(file, "utf8")) as { seeded?: string[] }).seeded ?? []) : []);
  const projects = createServiceClient(ProjectService, { baseUrl: opts.identityUrl, caller: "deploy", secret: opts.serviceSecret });
  const seeded: string[] = [];
  for (const projectId of opts.projectIds) {
    if (done.has(projectId)) continue;
    const { project } = await projects.getProject({ projectId });
    const admin = JSON.parse(project?.adminConfigJson || "{}") as { oauth_providers?: unknown[] };
    if ((admin.oauth_providers ?? []).length === 0) {
      await projects.updateProject({
        projectId,
        configUpdateJson: JSON.stringify({ oauth_providers: DEV_SHARED_PROVIDERS.map((id) => ({ id, type: "shared" })) }),
      });
      seeded.push(projectId);
    }
    done.add(projectId);
  }
  writeFileSync(file, JSON.stringify({ seeded: [...done] }, null, 2));
  return seeded;
}
