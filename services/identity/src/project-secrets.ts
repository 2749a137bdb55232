import type { SecretBox } from "@vestibule/shared/secrets";
import { mapSecretLeavesAsync, type ConfigOverride } from "./domain/config/index.ts";

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
