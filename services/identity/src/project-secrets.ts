import type { SecretBox } from "@vestibule/shared/secrets";
import { mapSecretLeavesAsync, type ConfigLevels, type ConfigOverride } from "./domain/config/index.ts";
import type { ProjectRow } from "./store/project-store.ts";

/**
 * Secret leaves of a project's config override (OAuth client secrets, the SMTP password) are stored as SecretBox
 * ciphertexts bound to the project and the leaf's path; everything else stays readable JSON.
 */
export function sealSecrets(box: SecretBox, projectId: string, doc: ConfigOverride): Promise<ConfigOverride> {
  return mapSecretLeavesAsync(doc, (value, path) => (value.startsWith("vsb1.") ? Promise.resolve(value) : box.encrypt(value, `project:${projectId}:config:${path}`)));
}

export function openSecrets(box: SecretBox, projectId: string, doc: ConfigOverride): Promise<ConfigOverride> {
  return mapSecretLeavesAsync(doc, (value, path) => (value.startsWith("vsb1.") ? box.decrypt(value, `project:${projectId}:config:${path}`) : Promise.resolve(value)));
}

/** A stored project's three config levels with their secrets opened. */
export async function openLevels(
  box: SecretBox,
  row: Pick<ProjectRow, "id" | "config_override" | "project_config_override" | "branch_config_override">,
): Promise<ConfigLevels<ConfigOverride>> {
  const [project, branch, environment] = await Promise.all([
    openSecrets(box, row.id, row.project_config_override),
    openSecrets(box, row.id, row.branch_config_override),
    openSecrets(box, row.id, row.config_override),
  ]);
  return { project, branch, environment };
}
