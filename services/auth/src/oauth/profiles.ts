/**
 * One small profile mapper per provider type: what a provider says about its user (ID-token claims, userinfo or the
 * provider's own user API) → the account id, e-mail, whether the provider verified it, name and picture. Pure.
 */
import { normalizeEmail } from "@vestibule/shared/emails";
import type { ProviderType } from "./settings.ts";

export interface ProviderProfile {
  readonly accountId: string;
  readonly email: string | null;
  readonly emailVerified: boolean;
  readonly displayName: string | null;
  readonly profileImageUrl: string | null;
}

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Json) : {});
const str = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : typeof v === "number" ? String(v) : null);
const verified = (v: unknown): boolean => v === true || v === "true";

/** The provider's answers a mapper reads: ID-token claims (OIDC), the user API's JSON, extra e-mail lists. */
export interface ProfileSources {
  readonly claims?: Json;
  readonly user?: Json;
  /** GitHub `/user/emails`, Bitbucket `/user/emails` values. */
  readonly emails?: readonly Json[];
}

function profile(accountId: string | null, email: string | null, emailVerified: boolean, name: string | null, picture: string | null): ProviderProfile {
  if (!accountId) throw new Error("the provider did not identify the account");
  return { accountId, email: email ? normalizeEmail(email) : null, emailVerified: email ? emailVerified : false, displayName: name, profileImageUrl: picture };
}

/** Standard OpenID Connect claims (ID token merged with userinfo). */
export function oidcProfile(src: ProfileSources): ProviderProfile {
  const c = { ...obj(src.user), ...obj(src.claims) };
  return profile(str(c.sub), str(c.email), verified(c.email_verified), str(c.name) ?? str(c.preferred_username), str(c.picture));
}

const mappers: Record<ProviderType, (src: ProfileSources) => ProviderProfile> = {
  google: oidcProfile,
  gitlab: oidcProfile,
  linkedin: oidcProfile,
  apple: (src) => {
    const c = obj(src.claims);
    const name = obj(obj(src.user).name);
    const full = [str(name.firstName), str(name.lastName)].filter(Boolean).join(" ");
    return profile(str(c.sub), str(c.email), verified(c.email_verified), full || null, null);
  },
  twitch: (src) => {
    const c = { ...obj(src.user), ...obj(src.claims) };
    return profile(str(c.sub), str(c.email), verified(c.email_verified), str(c.preferred_username), str(c.picture));
  },
  microsoft: (src) => {
    const c = { ...obj(src.user), ...obj(src.claims) };
    // Microsoft does not say whether it verified the address (tenants set any e-mail): treated as unverified.
    return profile(str(c.oid) ?? str(c.sub), str(c.email) ?? str(c.preferred_username), false, str(c.name), null);
  },
  github: (src) => {
    const u = obj(src.user);
    const emails = src.emails ?? [];
    const primary = emails.find((e) => e.primary === true) ?? emails.find((e) => e.verified === true);
    const email = primary ? str(primary.email) : str(u.email);
    return profile(str(u.id), email, primary ? verified(primary.verified) : false, str(u.name) ?? str(u.login), str(u.avatar_url));
  },
  spotify: (src) => {
    const u = obj(src.user);
    const image = Array.isArray(u.images) ? str(obj(u.images[0]).url) : null;
    return profile(str(u.id), str(u.email), false, str(u.display_name), image);
  },
  facebook: (src) => {
    const u = obj(src.user);
    return profile(str(u.id), str(u.email), false, str(u.name), str(obj(obj(u.picture).data).url));
  },
  discord: (src) => {
    const u = obj(src.user);
    const id = str(u.id);
    const avatar = str(u.avatar);
    return profile(id, str(u.email), verified(u.verified), str(u.global_name) ?? str(u.username), id && avatar ? `https://cdn.discordapp.com/avatars/${id}/${avatar}.png` : null);
  },
  bitbucket: (src) => {
    const u = obj(src.user);
    const primary = (src.emails ?? []).find((e) => e.is_primary === true);
    return profile(str(u.uuid) ?? str(u.account_id), primary ? str(primary.email) : null, primary ? verified(primary.is_confirmed) : false, str(u.display_name), str(obj(obj(u.links).avatar).href));
  },
  x: (src) => {
    const u = obj(obj(src.user).data);
    return profile(str(u.id), null, false, str(u.name) ?? str(u.username), str(u.profile_image_url));
  },
};

export function mapProfile(type: ProviderType, src: ProfileSources): ProviderProfile {
  return mappers[type](src);
}
