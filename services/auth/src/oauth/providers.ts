/**
 * Where each provider type lives and how Vestibule talks to it (the inner flow's client side). OIDC providers are
 * found by discovery at their issuer (ID token with nonce validated by openid-client); the others are plain OAuth 2
 * with PKCE and a user API. Any type can be pointed at another OpenID issuer by configuration
 * (`VESTIBULE_OAUTH_ISSUERS`, and the shared keys' `issuer`): the development identity provider and the tests use
 * that; such a type is then spoken to as standard OIDC.
 */
import type { ProviderType } from "./settings.ts";

export interface PlainEndpoints {
  readonly authorization: string;
  readonly token: string;
  /** The user API the profile comes from. */
  readonly user: string;
  /** An extra e-mail list API (GitHub, Bitbucket). */
  readonly emails?: string;
}

export interface ProviderDefinition {
  /** OIDC issuer (discovery); `{tenant}` is replaced for Microsoft. */
  readonly issuer?: string;
  readonly endpoints?: PlainEndpoints;
  readonly scopes: readonly string[];
  /** Extra authorization-request parameters. */
  readonly authParams?: Readonly<Record<string, string>>;
  /** Scope separator of the provider (most use a space). */
  readonly scopeSeparator?: string;
}

export const PROVIDERS: Readonly<Record<ProviderType, ProviderDefinition>> = {
  google: { issuer: "https://accounts.google.com", scopes: ["openid", "email", "profile"], authParams: { access_type: "offline", prompt: "consent" } },
  github: {
    endpoints: {
      authorization: "https://github.com/login/oauth/authorize",
      token: "https://github.com/login/oauth/access_token",
      user: "https://api.github.com/user",
      emails: "https://api.github.com/user/emails",
    },
    scopes: ["user:email"],
  },
  microsoft: {
    endpoints: {
      authorization: "https://login.microsoftonline.com/{tenant}/oauth2/v2.0/authorize",
      token: "https://login.microsoftonline.com/{tenant}/oauth2/v2.0/token",
      user: "https://graph.microsoft.com/oidc/userinfo",
    },
    scopes: ["openid", "profile", "email", "offline_access", "User.Read"],
  },
  spotify: {
    endpoints: { authorization: "https://accounts.spotify.com/authorize", token: "https://accounts.spotify.com/api/token", user: "https://api.spotify.com/v1/me" },
    scopes: ["user-read-email", "user-read-private"],
  },
  facebook: {
    endpoints: {
      authorization: "https://www.facebook.com/v21.0/dialog/oauth",
      token: "https://graph.facebook.com/v21.0/oauth/access_token",
      user: "https://graph.facebook.com/v21.0/me?fields=id,name,email,picture",
    },
    scopes: ["public_profile", "email"],
  },
  discord: {
    endpoints: { authorization: "https://discord.com/oauth2/authorize", token: "https://discord.com/api/oauth2/token", user: "https://discord.com/api/users/@me" },
    scopes: ["identify", "email"],
  },
  gitlab: { issuer: "https://gitlab.com", scopes: ["openid", "email", "profile"] },
  bitbucket: {
    endpoints: {
      authorization: "https://bitbucket.org/site/oauth2/authorize",
      token: "https://bitbucket.org/site/oauth2/access_token",
      user: "https://api.bitbucket.org/2.0/user",
      emails: "https://api.bitbucket.org/2.0/user/emails",
    },
    scopes: ["account", "email"],
  },
  linkedin: { issuer: "https://www.linkedin.com/oauth", scopes: ["openid", "profile", "email"] },
  apple: { issuer: "https://appleid.apple.com", scopes: ["name", "email"], authParams: { response_mode: "form_post" } },
  x: {
    endpoints: {
      authorization: "https://x.com/i/oauth2/authorize",
      token: "https://api.x.com/2/oauth2/token",
      user: "https://api.x.com/2/users/me?user.fields=profile_image_url",
    },
    scopes: ["users.read", "tweet.read", "offline.access"],
  },
  twitch: { issuer: "https://id.twitch.tv/oauth2", scopes: ["openid", "user:read:email"], authParams: { claims: JSON.stringify({ id_token: { email: null, email_verified: null, preferred_username: null, picture: null } }) } },
};

/** Shared (platform) keys exist for these types in production, as the published dashboard offers. */
export const SHARED_KEY_TYPES: readonly ProviderType[] = ["google", "github", "microsoft", "spotify"];

/** Scopes asked of a standard OIDC issuer that stands in for a provider (development provider, tests). */
export const OIDC_STAND_IN_SCOPES = ["openid", "email", "profile", "offline_access"];
