/** The config schema: drives validation (`validate.ts`) and rendering (`render.ts`). */

import { trustedDomainProblem } from "../domains.ts";
import {
  CUSTOM_PERMISSION_ID,
  CUSTOMER_TYPES,
  OAUTH_ACCOUNT_MERGE_STRATEGIES,
  OAUTH_PROVIDER_TYPES,
  PERMISSION_ID,
  type ConfigObject,
} from "./types.ts";

// ---------------------------------------------------------------------------------------------------------------
// Schema (drives validation and rendering)
// ---------------------------------------------------------------------------------------------------------------

export type SchemaNode =
  | { kind: "boolean" }
  | { kind: "string"; oneOf?: readonly string[]; check?: (value: string) => string | null }
  | { kind: "integer"; min?: number; max?: number }
  /** A set member: only `true` is stored (use null to remove). */
  | { kind: "true" }
  /** Fixed fields; `open` objects also accept (and keep) other keys with any value. */
  | { kind: "object"; fields: Readonly<Record<string, SchemaNode>>; open?: boolean }
  /** A collection keyed by ids; each entry gets `entryDefaults` for fields it lacks. */
  | { kind: "record"; entry: SchemaNode; entryDefaults?: ConfigObject; keyPattern?: RegExp }
  | { kind: "json" };

const bool: SchemaNode = { kind: "boolean" };
const str: SchemaNode = { kind: "string" };
const oneOf = (values: readonly string[]): SchemaNode => ({ kind: "string", oneOf: values });
const obj = (fields: Record<string, SchemaNode>, open = false): SchemaNode => ({ kind: "object", fields, open });
const permissionSet: SchemaNode = { kind: "record", entry: { kind: "true" }, keyPattern: PERMISSION_ID };

export const SCHEMA: SchemaNode = obj({
  project: obj({ requirePublishableClientKey: bool }),
  auth: obj({
    allowSignUp: bool,
    password: obj({ allowSignIn: bool }),
    otp: obj({ allowSignIn: bool }),
    passkey: obj({ allowSignIn: bool }),
    oauth: obj({
      accountMergeStrategy: oneOf(OAUTH_ACCOUNT_MERGE_STRATEGIES),
      providers: {
        kind: "record",
        entry: obj({
          type: oneOf(OAUTH_PROVIDER_TYPES),
          isShared: bool,
          allowSignIn: bool,
          allowConnectedAccounts: bool,
          clientId: str,
          clientSecret: str,
          facebookConfigId: str,
          microsoftTenantId: str,
          appleBundleIds: { kind: "json" },
        }),
        entryDefaults: { isShared: true, allowSignIn: false, allowConnectedAccounts: false },
        keyPattern: PERMISSION_ID,
      },
    }),
    refreshTokenRotation: bool,
    // The current SDK (2.8.108) wants 45 s left on a fresh token for link URLs (issue 13).
    // At most an hour: a signed-out session's access token stays valid until it expires (issue 18, SECURITY.md).
    accessTokenLifetimeSeconds: { kind: "integer", min: 60, max: 3600 },
    // Failed sign-in checks one client IP may make against this project per day (a bucket refilling over 24 h; the
    // service's VESTIBULE_AUTH_RATE_LIMIT_IP_FAILURES when unset). No default: absent from the rendered config until set.
    ipFailuresPerDay: { kind: "integer", min: 10, max: 1_000_000 },
    botChallenge: obj({ required: bool }),
  }),
  onboarding: obj({ requireEmailVerification: bool }),
  teams: obj({ createPersonalTeamOnSignUp: bool, allowClientTeamCreation: bool }),
  users: obj({ allowClientUserDeletion: bool }),
  domains: obj({
    allowLocalhost: bool,
    trustedDomains: {
      kind: "record",
      entry: obj({
        baseUrl: { kind: "string", check: trustedDomainProblem },
        handlerPath: {
          kind: "string",
          check: (v) => (v.startsWith("/") ? null : `Handler path must start with /: ${v}`),
        },
      }),
      entryDefaults: { handlerPath: "/handler" },
    },
  }),
  apiKeys: obj({ enabled: obj({ user: bool, team: bool }) }),
  rbac: obj({
    permissions: {
      kind: "record",
      entry: obj({
        description: str,
        scope: oneOf(["team", "project"]),
        containedPermissionIds: permissionSet,
      }),
      entryDefaults: { containedPermissionIds: {} },
      keyPattern: CUSTOM_PERMISSION_ID,
    },
    defaultPermissions: obj({ teamCreator: permissionSet, teamMember: permissionSet, signUp: permissionSet }),
  }),
  emails: obj({
    server: obj({
      isShared: bool,
      host: str,
      port: { kind: "integer", min: 0, max: 65535 },
      username: str,
      password: str,
      senderName: str,
      senderEmail: str,
    }),
    selectedThemeId: str,
    themes: { kind: "record", entry: obj({ displayName: str, tsxSource: str }, true) },
    templates: { kind: "record", entry: obj({ displayName: str, tsxSource: str }, true) },
  }),
  payments: obj(
    {
      groups: { kind: "record", entry: obj({ displayName: str }, true) },
      offers: {
        kind: "record",
        entry: obj(
          { displayName: str, groupId: str, customerType: oneOf(CUSTOMER_TYPES), serverOnly: bool, stackable: bool },
          true,
        ),
      },
      items: { kind: "record", entry: obj({ displayName: str, customerType: oneOf(CUSTOMER_TYPES) }, true) },
      autoPay: { kind: "json" },
    },
    true,
  ),
  dataVault: obj({ stores: { kind: "record", entry: obj({ displayName: str }, true) } }, true),
  apps: obj({ installed: { kind: "record", entry: obj({ enabled: bool }, true), entryDefaults: { enabled: false } } }),
});
