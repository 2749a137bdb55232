/** The apps' options, the shared small types (known errors by name, JSON, redirects, token stores) and the project. */
import type { KnownErrors, TokenPair } from "@vestibule/sdk-core";
import type { HandlerUrls } from "../urls.ts";

export type KnownErrorOfName<N extends keyof typeof KnownErrors> = InstanceType<(typeof KnownErrors)[N]>;
export type ReadonlyJson = null | boolean | number | string | readonly ReadonlyJson[] | { readonly [key: string]: ReadonlyJson };

export type RedirectMethod = "window" | "none" | { useNavigate: () => (to: string) => void; navigate?: (to: string) => void };
export interface RedirectToOptions {
  readonly replace?: boolean;
  readonly noRedirectBack?: boolean;
}

export interface RequestLike {
  readonly headers: { get(name: string): string | null };
}
export type TokenStoreInit = "cookie" | "nextjs-cookie" | "memory" | RequestLike | { accessToken: string | null; refreshToken: string | null } | null;

export type GetUserOr = "redirect" | "throw" | "return-null" | "anonymous";
export interface GetUserOptions {
  readonly or?: GetUserOr;
  /** Read the user of another token store (e.g. the incoming request on a server). */
  readonly tokenStore?: TokenStoreInit;
}

export type OAuthProviderType =
  | "google"
  | "github"
  | "microsoft"
  | "spotify"
  | "facebook"
  | "discord"
  | "gitlab"
  | "bitbucket"
  | "linkedin"
  | "apple"
  | "x"
  | "twitch";
export type OAuthScopesOnSignIn = Partial<Record<OAuthProviderType, string[]>>;

export interface StackClientAppConstructorOptions {
  readonly baseUrl?: string | { browser: string; server: string };
  readonly projectId?: string;
  readonly publishableClientKey?: string;
  readonly extraRequestHeaders?: Record<string, string>;
  readonly tokenStore?: TokenStoreInit;
  readonly urls?: Partial<HandlerUrls>;
  readonly redirectMethod?: RedirectMethod;
  readonly oauthScopesOnSignIn?: OAuthScopesOnSignIn;
  readonly noAutomaticPrefetch?: boolean;
  /** Apps with the same identifier are refused (one app per identifier per page). Default: a random one. */
  readonly uniqueIdentifier?: string;
  /** A fetch implementation (tests, proxies); default `globalThis.fetch`. */
  readonly fetch?: (input: string, init: RequestInit) => Promise<Response>;
  /**
   * A 429 whose `Retry-After` is longer than this is thrown at once (a `StatusError` with `retryAfterSeconds`) instead
   * of being waited out silently; default: every 429 is waited out, as the published SDK does.
   */
  readonly maxRateLimitWaitMillis?: number;
}
export interface StackServerAppConstructorOptions extends StackClientAppConstructorOptions {
  readonly secretServerKey?: string;
}
export type StackAdminAppConstructorOptions =
  | (StackServerAppConstructorOptions & { readonly superSecretAdminKey?: string })
  | (Omit<StackServerAppConstructorOptions, "publishableClientKey" | "secretServerKey"> & {
      /** The owner's session on the internal project (dashboard mode). */
      readonly projectOwnerSession: import("@vestibule/sdk-core").Session | TokenPair;
      /** The internal project's publishable key, to refresh the owner's session. */
      readonly projectOwnerPublishableClientKey?: string;
    });

// ---- Projects ----------------------------------------------------------------------------------------------

export interface OAuthProviderConfig {
  readonly id: string;
}
export interface ProjectConfig {
  readonly signUpEnabled: boolean;
  readonly credentialEnabled: boolean;
  readonly magicLinkEnabled: boolean;
  readonly passkeyEnabled: boolean;
  readonly clientTeamCreationEnabled: boolean;
  readonly clientUserDeletionEnabled: boolean;
  readonly allowUserApiKeys: boolean;
  readonly allowTeamApiKeys: boolean;
  readonly oauthProviders: readonly OAuthProviderConfig[];
}
export interface Project {
  readonly id: string;
  readonly displayName: string;
  readonly config: ProjectConfig;
}
