/** Config JSON and override types, enumerations and id patterns. */

// ---------------------------------------------------------------------------------------------------------------
// JSON and override types
// ---------------------------------------------------------------------------------------------------------------

export type ConfigValue = string | number | boolean | null | ConfigValue[] | ConfigObject;
export interface ConfigObject {
  [key: string]: ConfigValue;
}
/** An override document or patch: keys are property names or dotted paths. */
export type ConfigOverride = ConfigObject;
/**
 * What the functions accept as an override (e.g. a parsed JSON column typed `Record<string, unknown>`). Values are
 * expected to be JSON; `undefined` properties are ignored.
 */
export type OverrideInput = { readonly [key: string]: unknown };

// ---------------------------------------------------------------------------------------------------------------
// Enumerations
// ---------------------------------------------------------------------------------------------------------------

export const OAUTH_PROVIDER_TYPES = [
  "google",
  "github",
  "microsoft",
  "spotify",
  "facebook",
  "discord",
  "gitlab",
  "bitbucket",
  "linkedin",
  "apple",
  "x",
  "twitch",
] as const;
export type OAuthProviderType = (typeof OAUTH_PROVIDER_TYPES)[number];

export const OAUTH_ACCOUNT_MERGE_STRATEGIES = ["link_method", "raise_error", "allow_duplicates"] as const;
export type OAuthAccountMergeStrategy = (typeof OAUTH_ACCOUNT_MERGE_STRATEGIES)[number];

export const CUSTOMER_TYPES = ["user", "team", "custom"] as const;

/** Stack Auth's built-in "Default Light" e-mail theme id, selected by default. */
export const DEFAULT_EMAIL_THEME_ID = "1df07ae6-abf3-4a40-83a5-a1a2cbe336ac";

/** Permission ids (spec section 5): lowercase letters, digits, `:` and `_`, optional leading `$` (system). */
export const PERMISSION_ID = /^\$?[a-z0-9_:]+$/;
/** Ids of custom permission definitions: no `$`. */
export const CUSTOM_PERMISSION_ID = /^[a-z0-9_:]+$/;
