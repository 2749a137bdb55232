/**
 * Development bootstrap: keys for the `internal` project (created by the identity service itself) and a demo project
 * with its keys. Used by `npm start` (persisted in `.vestibule/dev.json`) and by the integration tests.
 */
import { Code, ConnectError } from "@connectrpc/connect";
import { ApiKeySetService, ProjectKeyType } from "@vestibule/proto/identity/v1/api_key_service";
import { ProjectService } from "@vestibule/proto/identity/v1/project_service";
import { createServiceClient } from "@vestibule/shared/rpc";

export interface ProjectKeys {
  project_id: string;
  publishable_client_key: string;
  secret_server_key: string;
  super_secret_admin_key: string;
}

export interface DevProjects {
  internal: ProjectKeys;
  demo: ProjectKeys;
}

/** Shape of `.vestibule/dev.json`. */
export interface DevFile {
  gateway_url: string;
  projects: DevProjects;
}

export const INTERNAL_PROJECT_ID = "internal";
export const DEMO_DISPLAY_NAME = "Demo Project";

/** Config update applied to the demo project: everything a developer wants to try locally is switched on. */
export const DEMO_CONFIG_UPDATE = {
  allow_localhost: true,
  credential_enabled: true,
  magic_link_enabled: true,
  sign_up_enabled: true,
  client_team_creation_enabled: true,
  create_team_on_sign_up: true,
  allow_user_api_keys: true,
  allow_team_api_keys: true,
} as const;

export interface BootstrapOptions {
  identityUrl: string;
  serviceSecret: string;
  /** Keys from an earlier run; each project is reused when it still exists and its keys are still valid. */
  existing?: Partial<DevProjects>;
  /** Description of new key sets. */
  keyDescription?: string;
  /** Waits for the identity service to have created the `internal` project. Default 20 s. */
  timeoutMs?: number;
}

export interface BootstrapResult {
  projects: DevProjects;
  /** What was created in this run (empty when everything was reused). */
  created: string[];
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function isNotFound(err: unknown): boolean {
  return err instanceof ConnectError && err.code === Code.NotFound;
}

export async function bootstrapProjects(options: BootstrapOptions): Promise<BootstrapResult> {
  const clientOptions = { baseUrl: options.identityUrl, caller: "deploy", secret: options.serviceSecret };
  const projects = createServiceClient(ProjectService, clientOptions);
  const keySets = createServiceClient(ApiKeySetService, clientOptions);
  const description = options.keyDescription ?? "Development keys (npm start)";
  const created: string[] = [];

  const projectExists = async (projectId: string): Promise<boolean> => {
    try {
      await projects.getProject({ projectId });
      return true;
    } catch (err) {
      if (isNotFound(err)) return false;
      throw err;
    }
  };

  const keysValid = async (keys: ProjectKeys): Promise<boolean> => {
    const checks: Array<[ProjectKeyType, string]> = [
      [ProjectKeyType.PUBLISHABLE_CLIENT, keys.publishable_client_key],
      [ProjectKeyType.SECRET_SERVER, keys.secret_server_key],
      [ProjectKeyType.SUPER_SECRET_ADMIN, keys.super_secret_admin_key],
    ];
    for (const [keyType, key] of checks) {
      if (!key) return false;
      const res = await keySets.checkProjectKey({ projectId: keys.project_id, keyType, key });
      if (!res.valid) return false;
    }
    return true;
  };

  const newKeys = async (projectId: string, label: string): Promise<ProjectKeys> => {
    const res = await keySets.createApiKeySet({
      projectId,
      description,
      expiresAtMillis: 0n,
      hasPublishableClientKey: true,
      hasSecretServerKey: true,
      hasSuperSecretAdminKey: true,
    });
    const set = res.apiKeySet;
    if (!set) throw new Error(`CreateApiKeySet for ${projectId} returned no key set`);
    created.push(`${label} key set ${set.id}`);
    return {
      project_id: projectId,
      publishable_client_key: set.publishableClientKey,
      secret_server_key: set.secretServerKey,
      super_secret_admin_key: set.superSecretAdminKey,
    };
  };

  // internal: the identity service creates the project on start; it may take a moment after SERVING.
  const deadline = Date.now() + (options.timeoutMs ?? 20_000);
  while (!(await projectExists(INTERNAL_PROJECT_ID))) {
    if (Date.now() > deadline) throw new Error(`the identity service did not create the "${INTERNAL_PROJECT_ID}" project`);
    await sleep(200);
  }
  const previousInternal = options.existing?.internal;
  const internal =
    previousInternal && previousInternal.project_id === INTERNAL_PROJECT_ID && (await keysValid(previousInternal))
      ? previousInternal
      : await newKeys(INTERNAL_PROJECT_ID, "internal");

  // demo: reuse the project when it still exists; new keys when the old ones are gone or revoked.
  const previousDemo = options.existing?.demo;
  let demo: ProjectKeys;
  if (previousDemo?.project_id && (await projectExists(previousDemo.project_id))) {
    demo = (await keysValid(previousDemo)) ? previousDemo : await newKeys(previousDemo.project_id, "demo");
  } else {
    const res = await projects.createProject({
      id: "",
      displayName: DEMO_DISPLAY_NAME,
      description: "Created by npm start for local development",
      isProductionMode: false,
      configUpdateJson: JSON.stringify(DEMO_CONFIG_UPDATE),
    });
    const projectId = res.project?.id;
    if (!projectId) throw new Error("CreateProject returned no project");
    created.push(`demo project ${projectId}`);
    demo = await newKeys(projectId, "demo");
  }

  return { projects: { internal, demo }, created };
}
