/** Validation of admin config updates (request bodies). */

import { trustedDomainProblem } from "../domains.ts";
import { describe, isPlainObject } from "./json.ts";
import { OAUTH_ACCOUNT_MERGE_STRATEGIES, OAUTH_PROVIDER_TYPES, PERMISSION_ID, type ConfigObject } from "./types.ts";

// ---------------------------------------------------------------------------------------------------------------
// Config update validation (request bodies)
// ---------------------------------------------------------------------------------------------------------------

const UPDATE_BOOLEAN_FIELDS = [
  "sign_up_enabled",
  "credential_enabled",
  "magic_link_enabled",
  "passkey_enabled",
  "client_team_creation_enabled",
  "client_user_deletion_enabled",
  "allow_localhost",
  "allow_user_api_keys",
  "allow_team_api_keys",
  "create_team_on_sign_up",
] as const;
const UPDATE_PERMISSION_FIELDS = [
  "team_creator_default_permissions",
  "team_member_default_permissions",
  "user_default_permissions",
] as const;
const UPDATE_FIELDS: readonly string[] = [
  ...UPDATE_BOOLEAN_FIELDS,
  ...UPDATE_PERMISSION_FIELDS,
  "email_config",
  "email_theme",
  "domains",
  "oauth_providers",
  "oauth_account_merge_strategy",
];

function unknownKeys(o: ConfigObject, allowed: readonly string[], path: string, problems: string[]): void {
  const extra = Object.keys(o).filter((k) => !allowed.includes(k));
  if (extra.length > 0) problems.push(`${path} contains unknown properties: ${extra.join(", ")}`);
}

function optionalString(o: ConfigObject, key: string, path: string, problems: string[]): void {
  if (o[key] !== undefined && typeof o[key] !== "string") {
    problems.push(`${path}.${key} must be a string, but got ${describe(o[key])}`);
  }
}

/**
 * Problems of a config update object (the `config` of the project create/update bodies), empty when acceptable:
 * unknown properties, wrong types, enum values, domains (http(s) URL with a valid host pattern, handler path
 * starting with /), OAuth providers (known provider id, shared|standard, standard needs client_id and
 * client_secret), standard e-mail config (host, port 0-65535, username, password, sender_name, sender_email all
 * required), permission ids.
 */
export function validateAdminConfigUpdate(update: unknown, path = "config"): string[] {
  if (!isPlainObject(update)) return [`${path} must be an object`];
  const problems: string[] = [];
  unknownKeys(update, UPDATE_FIELDS, path, problems);
  for (const field of UPDATE_BOOLEAN_FIELDS) {
    const v = update[field];
    if (v !== undefined && typeof v !== "boolean") problems.push(`${path}.${field} must be a boolean, but got ${describe(v)}`);
  }
  optionalString(update, "email_theme", path, problems);
  const merge = update.oauth_account_merge_strategy;
  if (merge !== undefined && !(OAUTH_ACCOUNT_MERGE_STRATEGIES as readonly unknown[]).includes(merge)) {
    problems.push(`${path}.oauth_account_merge_strategy must be one of ${OAUTH_ACCOUNT_MERGE_STRATEGIES.join(", ")}`);
  }
  for (const field of UPDATE_PERMISSION_FIELDS) {
    const list = update[field];
    if (list === undefined) continue;
    if (!Array.isArray(list)) {
      problems.push(`${path}.${field} must be an array`);
      continue;
    }
    list.forEach((item, i) => {
      const p = `${path}.${field}[${i}]`;
      if (!isPlainObject(item)) return problems.push(`${p} must be an object`);
      unknownKeys(item, ["id"], p, problems);
      if (typeof item.id !== "string" || !PERMISSION_ID.test(item.id)) {
        problems.push(`${p}.id: Only lowercase letters, numbers, ":", "_" and optional "$" at the beginning are allowed`);
      }
    });
  }
  const domains = update.domains;
  if (domains !== undefined) {
    if (!Array.isArray(domains)) problems.push(`${path}.domains must be an array`);
    else
      domains.forEach((item, i) => {
        const p = `${path}.domains[${i}]`;
        if (!isPlainObject(item)) return problems.push(`${p} must be an object`);
        unknownKeys(item, ["domain", "handler_path"], p, problems);
        if (typeof item.domain !== "string") problems.push(`${p}.domain must be a string`);
        else {
          const problem = trustedDomainProblem(item.domain);
          if (problem) problems.push(`${p}.domain: ${problem}`);
        }
        if (typeof item.handler_path !== "string") problems.push(`${p}.handler_path must be a string`);
        else if (!item.handler_path.startsWith("/")) problems.push(`${p}.handler_path must start with /`);
      });
  }
  const providers = update.oauth_providers;
  if (providers !== undefined) {
    if (!Array.isArray(providers)) problems.push(`${path}.oauth_providers must be an array`);
    else
      providers.forEach((item, i) => {
        const p = `${path}.oauth_providers[${i}]`;
        if (!isPlainObject(item)) return problems.push(`${p} must be an object`);
        unknownKeys(
          item,
          ["id", "type", "client_id", "client_secret", "facebook_config_id", "microsoft_tenant_id", "apple_bundle_ids", "enabled"],
          p,
          problems,
        );
        if (typeof item.id !== "string" || !(OAUTH_PROVIDER_TYPES as readonly string[]).includes(item.id)) {
          problems.push(`${p}.id must be one of ${OAUTH_PROVIDER_TYPES.join(", ")}`);
        }
        if (item.type !== "shared" && item.type !== "standard") problems.push(`${p}.type must be shared or standard`);
        for (const k of ["client_id", "client_secret", "facebook_config_id", "microsoft_tenant_id"]) optionalString(item, k, p, problems);
        if (item.enabled !== undefined && typeof item.enabled !== "boolean") problems.push(`${p}.enabled must be a boolean`);
        const bundles = item.apple_bundle_ids;
        if (bundles !== undefined && !(Array.isArray(bundles) && bundles.every((b) => typeof b === "string" && b !== ""))) {
          problems.push(`${p}.apple_bundle_ids must be an array of non-empty strings`);
        }
        if (item.type === "standard") {
          if (typeof item.client_id !== "string" || item.client_id === "") problems.push(`${p}.client_id is required for standard providers`);
          if (typeof item.client_secret !== "string" || item.client_secret === "") {
            problems.push(`${p}.client_secret is required for standard providers`);
          }
        }
      });
    if (Array.isArray(providers)) {
      const ids = providers.filter(isPlainObject).map((item) => item.id);
      const dup = ids.filter((id, i) => ids.indexOf(id) !== i);
      if (dup.length > 0) problems.push(`${path}.oauth_providers lists a provider twice: ${[...new Set(dup)].join(", ")}`);
    }
  }
  const email = update.email_config;
  if (email !== undefined) {
    const p = `${path}.email_config`;
    if (!isPlainObject(email)) problems.push(`${p} must be an object`);
    else {
      unknownKeys(email, ["type", "host", "port", "username", "password", "sender_name", "sender_email"], p, problems);
      if (email.type !== "shared" && email.type !== "standard") problems.push(`${p}.type must be shared or standard`);
      for (const k of ["host", "username", "password", "sender_name", "sender_email"]) {
        optionalString(email, k, p, problems);
        if (email.type === "standard" && (typeof email[k] !== "string" || email[k] === "")) {
          problems.push(`${p}.${k} is required for a standard e-mail server`);
        }
      }
      const port = email.port;
      if (port !== undefined && (typeof port !== "number" || !Number.isInteger(port) || port < 0 || port > 65535)) {
        problems.push(`${p}.port must be an integer from 0 to 65535`);
      } else if (email.type === "standard" && port === undefined) {
        problems.push(`${p}.port is required for a standard e-mail server`);
      }
    }
  }
  return problems;
}
