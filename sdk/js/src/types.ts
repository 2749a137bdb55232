/**
 * Public object types of the SDK. Names, fields and methods follow the published `@stackframe/js` API for this
 * contract, so code written against it type-checks against `@vestibule/js` after changing only the import.
 */
import type { KnownErrors, Result, TokenPair } from "@vestibule/sdk-core";
import type { HandlerUrls } from "./urls.ts";
import type { Json } from "./json.ts";

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

// ---- Sessions and auth -------------------------------------------------------------------------------------

export interface Session {
  getTokens(): Promise<{ accessToken: string | null; refreshToken: string | null }>;
}
export interface GeoInfo {
  readonly ip?: string;
  readonly countryCode?: string | null;
  readonly regionCode?: string | null;
  readonly cityName?: string | null;
  readonly latitude?: number | null;
  readonly longitude?: number | null;
  readonly tzIdentifier?: string | null;
}
export interface ActiveSession {
  readonly id: string;
  readonly userId: string;
  readonly createdAt: Date;
  readonly isImpersonation: boolean;
  readonly lastUsedAt: Date | undefined;
  readonly isCurrentSession: boolean;
  readonly geoInfo?: GeoInfo;
}
/** One of the signed-in user's passkeys (Vestibule's own `/auth/passkeys`). */
export interface Passkey {
  readonly id: string;
  readonly name: string;
  readonly createdAt: Date;
  readonly lastUsedAt: Date | null;
  readonly transports: readonly string[];
}
export interface Auth {
  readonly currentSession: Session;
  signOut(options?: { redirectUrl?: URL | string }): Promise<void>;
  getAuthHeaders(): Promise<{ "x-stack-auth": string }>;
  getAuthJson(): Promise<{ accessToken: string | null; refreshToken: string | null }>;
  registerPasskey(options?: { hostname?: string }): Promise<Result<undefined, KnownErrorOfName<"PasskeyRegistrationFailed"> | KnownErrorOfName<"PasskeyWebAuthnError">>>;
  /** The user's passkeys, oldest first (Vestibule extension). */
  listPasskeys(): Promise<Passkey[]>;
  renamePasskey(id: string, name: string): Promise<void>;
  /** Removes a passkey; removing the last one turns passkey sign-in off for the user. */
  deletePasskey(id: string): Promise<void>;
}

// ---- Users -------------------------------------------------------------------------------------------------

export interface BaseUser {
  readonly id: string;
  readonly displayName: string | null;
  readonly primaryEmail: string | null;
  readonly primaryEmailVerified: boolean;
  readonly profileImageUrl: string | null;
  readonly signedUpAt: Date;
  readonly clientMetadata: any;
  readonly clientReadOnlyMetadata: any;
  readonly hasPassword: boolean;
  readonly otpAuthEnabled: boolean;
  readonly passkeyAuthEnabled: boolean;
  readonly isMultiFactorRequired: boolean;
  readonly isAnonymous: boolean;
  /** @deprecated use contact channels' usedForAuth */
  readonly emailAuthEnabled: boolean;
  readonly oauthProviders: readonly { id: string }[];
  toClientJson(): Record<string, unknown>;
}
export type User = BaseUser;

export interface UserUpdateOptions {
  displayName?: string;
  clientMetadata?: ReadonlyJson;
  selectedTeamId?: string | null;
  totpMultiFactorSecret?: Uint8Array | null;
  profileImageUrl?: string | null;
  otpAuthEnabled?: boolean;
  passkeyAuthEnabled?: boolean;
}
export interface ServerUserUpdateOptions extends UserUpdateOptions {
  primaryEmail?: string | null;
  primaryEmailVerified?: boolean;
  primaryEmailAuthEnabled?: boolean;
  clientReadOnlyMetadata?: ReadonlyJson;
  serverMetadata?: ReadonlyJson;
  password?: string;
  /** Restrict the user (false lifts it, clearing the reason and details). */
  restrictedByAdmin?: boolean;
  /** Shown to the user. */
  restrictedByAdminReason?: string | null;
  /** For administrators only. */
  restrictedByAdminPrivateDetails?: string | null;
}
export interface ServerUserCreateOptions {
  primaryEmail?: string | null;
  primaryEmailAuthEnabled?: boolean;
  password?: string;
  otpAuthEnabled?: boolean;
  displayName?: string;
  primaryEmailVerified?: boolean;
  clientMetadata?: any;
  clientReadOnlyMetadata?: any;
  serverMetadata?: any;
}
export interface ServerListUsersOptions {
  cursor?: string;
  limit?: number;
  orderBy?: "signedUpAt";
  desc?: boolean;
  query?: string;
  includeAnonymous?: boolean;
  /** Also users who are restricted (unverified where verification is required, or restricted by an admin). */
  includeRestricted?: boolean;
}

export interface TeamPermission {
  readonly id: string;
}
export type ProjectPermission = TeamPermission;

export interface Item {
  readonly displayName: string;
  /** May be negative. */
  readonly quantity: number;
  /** max(0, quantity). */
  readonly nonNegativeQuantity: number;
}
export interface ServerItem extends Item {
  increaseQuantity(amount: number): Promise<void>;
  decreaseQuantity(amount: number): Promise<void>;
  tryDecreaseQuantity(amount: number): Promise<boolean>;
}
export type ItemCustomer = { itemId: string; userId: string } | { itemId: string; teamId: string } | { itemId: string; customCustomerId: string };

export interface Customer<Server extends boolean = false> {
  readonly id: string;
  getItem(itemId: string): Promise<Server extends true ? ServerItem : Item>;
  createCheckoutUrl(options: { offerId: string } | (Server extends true ? { offer: Record<string, unknown> } : never)): Promise<string>;
}

export interface ContactChannel {
  readonly id: string;
  readonly value: string;
  readonly type: "email";
  readonly isPrimary: boolean;
  readonly isVerified: boolean;
  readonly usedForAuth: boolean;
  sendVerificationEmail(options?: { callbackUrl?: string }): Promise<void>;
  update(data: ContactChannelUpdateOptions): Promise<void>;
  delete(): Promise<void>;
}
export interface ContactChannelCreateOptions {
  value: string;
  type: "email";
  usedForAuth: boolean;
  isPrimary?: boolean;
}
export interface ContactChannelUpdateOptions {
  usedForAuth?: boolean;
  value?: string;
  isPrimary?: boolean;
}
export interface ServerContactChannel extends ContactChannel {
  update(data: ContactChannelUpdateOptions & { isVerified?: boolean }): Promise<void>;
}
export type ServerContactChannelCreateOptions = ContactChannelCreateOptions & { isVerified?: boolean };

export interface NotificationCategory {
  readonly id: string;
  readonly name: string;
  readonly enabled: boolean;
  readonly canDisable: boolean;
  setEnabled(enabled: boolean): Promise<void>;
}

export interface OAuthProvider {
  readonly id: string;
  readonly type: string;
  readonly userId: string;
  readonly accountId?: string;
  readonly email?: string;
  readonly allowSignIn: boolean;
  readonly allowConnectedAccounts: boolean;
  update(data: { allowSignIn?: boolean; allowConnectedAccounts?: boolean }): Promise<Result<void, KnownErrorOfName<"OAuthProviderAccountIdAlreadyUsedForSignIn">>>;
  delete(): Promise<void>;
}
export interface OAuthConnection {
  readonly id: string;
  getAccessToken(): Promise<{ accessToken: string }>;
}

export type ApiKeyType = "user" | "team";
export interface ApiKeyBase {
  readonly id: string;
  readonly description: string;
  readonly expiresAt?: Date;
  readonly manuallyRevokedAt?: Date | null;
  readonly createdAt: Date;
  readonly isPublic: boolean;
  update(options: { description?: string; expiresAt?: Date | null; revoked?: boolean }): Promise<void>;
  revoke(): Promise<void>;
  isValid(): boolean;
  whyInvalid(): "manually-revoked" | "expired" | null;
}
export type UserApiKey = ApiKeyBase & { readonly type: "user"; readonly userId: string; readonly value: { lastFour: string } };
export type UserApiKeyFirstView = ApiKeyBase & { readonly type: "user"; readonly userId: string; readonly value: string };
export type TeamApiKey = ApiKeyBase & { readonly type: "team"; readonly teamId: string; readonly value: { lastFour: string } };
export type TeamApiKeyFirstView = ApiKeyBase & { readonly type: "team"; readonly teamId: string; readonly value: string };
export interface ApiKeyCreationOptions {
  description: string;
  expiresAt: Date | null;
  isPublic?: boolean;
}

// ---- Teams -------------------------------------------------------------------------------------------------

export interface TeamMemberProfile {
  readonly displayName: string | null;
  readonly profileImageUrl: string | null;
}
export interface EditableTeamMemberProfile extends TeamMemberProfile {
  update(update: { displayName?: string; profileImageUrl?: string | null }): Promise<void>;
}
export interface TeamUser {
  readonly id: string;
  readonly teamProfile: TeamMemberProfile;
}
export interface TeamInvitation {
  readonly id: string;
  readonly recipientEmail: string | null;
  readonly expiresAt: Date;
  revoke(): Promise<void>;
}
export interface TeamUpdateOptions {
  displayName?: string;
  profileImageUrl?: string | null;
  clientMetadata?: ReadonlyJson;
}
export interface TeamCreateOptions {
  displayName: string;
  profileImageUrl?: string;
}
export interface Team extends Customer {
  readonly id: string;
  readonly displayName: string;
  readonly profileImageUrl: string | null;
  readonly clientMetadata: any;
  readonly clientReadOnlyMetadata: any;
  inviteUser(options: { email: string; callbackUrl?: string }): Promise<void>;
  listUsers(): Promise<TeamUser[]>;
  listInvitations(): Promise<TeamInvitation[]>;
  update(update: TeamUpdateOptions): Promise<void>;
  delete(): Promise<void>;
  createApiKey(options: ApiKeyCreationOptions): Promise<TeamApiKeyFirstView>;
  listApiKeys(): Promise<TeamApiKey[]>;
}
export interface ServerTeamUpdateOptions extends TeamUpdateOptions {
  clientReadOnlyMetadata?: ReadonlyJson;
  serverMetadata?: ReadonlyJson;
}
export interface ServerTeamCreateOptions extends TeamCreateOptions {
  creatorUserId?: string;
}
export interface ServerTeamUser extends ServerUser {
  readonly teamProfile: TeamMemberProfile;
}
export interface ServerTeam extends Omit<Team, "listUsers" | "update" | "getItem" | "createCheckoutUrl">, Customer<true> {
  readonly createdAt: Date;
  readonly serverMetadata: any;
  listUsers(): Promise<ServerTeamUser[]>;
  update(update: ServerTeamUpdateOptions): Promise<void>;
  addUser(userId: string): Promise<void>;
  removeUser(userId: string): Promise<void>;
}

// ---- User shapes -------------------------------------------------------------------------------------------

export interface UserExtra {
  setDisplayName(displayName: string): Promise<void>;
  /** @deprecated use a contact channel's sendVerificationEmail */
  sendVerificationEmail(): Promise<KnownErrorOfName<"EmailAlreadyVerified"> | void>;
  setClientMetadata(metadata: any): Promise<void>;
  updatePassword(options: { oldPassword: string; newPassword: string }): Promise<
    KnownErrorOfName<"PasswordConfirmationMismatch"> | KnownErrorOfName<"PasswordRequirementsNotMet"> | void
  >;
  setPassword(options: { password: string }): Promise<KnownErrorOfName<"PasswordRequirementsNotMet"> | void>;
  update(update: UserUpdateOptions): Promise<void>;
  listContactChannels(): Promise<ContactChannel[]>;
  createContactChannel(data: ContactChannelCreateOptions): Promise<ContactChannel>;
  listNotificationCategories(): Promise<NotificationCategory[]>;
  delete(): Promise<void>;
  getConnectedAccount(id: string, options?: { or?: "redirect" | "throw" | "return-null"; scopes?: string[] }): Promise<OAuthConnection | null>;
  hasPermission(scopeOrId: Team | string, permissionId?: string): Promise<boolean>;
  getPermission(scopeOrId: Team | string, permissionId?: string): Promise<TeamPermission | null>;
  listPermissions(scopeOrOptions?: Team | { recursive?: boolean }, options?: { recursive?: boolean }): Promise<TeamPermission[]>;
  readonly selectedTeam: Team | null;
  setSelectedTeam(team: Team | null): Promise<void>;
  createTeam(data: TeamCreateOptions): Promise<Team>;
  leaveTeam(team: Team): Promise<void>;
  getActiveSessions(): Promise<ActiveSession[]>;
  revokeSession(sessionId: string): Promise<void>;
  getTeamProfile(team: Team): Promise<EditableTeamMemberProfile>;
  createApiKey(options: ApiKeyCreationOptions): Promise<UserApiKeyFirstView>;
  listApiKeys(): Promise<UserApiKey[]>;
  listOAuthProviders(): Promise<OAuthProvider[]>;
  getOAuthProvider(id: string): Promise<OAuthProvider | null>;
  getTeam(id: string): Promise<Team | null>;
  listTeams(): Promise<Team[]>;
}
export type CurrentUser = BaseUser & Auth & UserExtra & Customer;

/**
 * Calls of a user of the `internal` project (a dashboard user, who manages projects through their teams). The client
 * app of the internal project returns users with these methods; the published SDK types them through the app's
 * project-id type parameter, which this SDK does not carry, so narrow with `user as CurrentInternalUser`.
 */
export interface InternalUserExtra {
  /** The projects this user manages (GET /internal/projects), each with an admin app acting as this user. */
  listOwnedProjects(): Promise<AdminOwnedProject[]>;
  /** Creates a project owned by one of the user's teams (POST /internal/projects). */
  createProject(options: AdminProjectCreateOptions): Promise<AdminOwnedProject>;
}
export type CurrentInternalUser = CurrentUser & InternalUserExtra;

/** Why a user is restricted (the current Stack SDK's shape). */
export type RestrictedReason = { readonly type: "anonymous" | "email_not_verified" | "restricted_by_administrator" };

export interface ServerUserExtra {
  readonly lastActiveAt: Date;
  /** The user's passkeys, oldest first (Vestibule extension; GET /auth/passkeys?user_id=). */
  listPasskeys(): Promise<Passkey[]>;
  readonly serverMetadata: any;
  /** Anonymous, unverified where the project requires verified e-mails, or restricted by an administrator. */
  readonly isRestricted: boolean;
  readonly restrictedReason: RestrictedReason | null;
  readonly restrictedByAdmin: boolean;
  readonly restrictedByAdminReason: string | null;
  readonly restrictedByAdminPrivateDetails: string | null;
  setPrimaryEmail(email: string | null, options?: { verified?: boolean }): Promise<void>;
  setServerMetadata(metadata: any): Promise<void>;
  setClientReadOnlyMetadata(metadata: any): Promise<void>;
  update(user: ServerUserUpdateOptions): Promise<void>;
  grantPermission(scopeOrId: Team | string, permissionId?: string): Promise<void>;
  revokePermission(scopeOrId: Team | string, permissionId?: string): Promise<void>;
  createSession(options?: { expiresInMillis?: number; isImpersonation?: boolean }): Promise<Session>;
  listContactChannels(): Promise<ServerContactChannel[]>;
  createContactChannel(data: ServerContactChannelCreateOptions): Promise<ServerContactChannel>;
  createTeam(data: Omit<ServerTeamCreateOptions, "creatorUserId">): Promise<ServerTeam>;
  getTeam(id: string): Promise<ServerTeam | null>;
  listTeams(): Promise<ServerTeam[]>;
}
export type ServerUser = BaseUser & Omit<UserExtra, keyof ServerUserExtra> & ServerUserExtra & Customer<true>;
export type CurrentServerUser = ServerUser & Auth;

// ---- Data vault --------------------------------------------------------------------------------------------

export interface DataVaultStore {
  readonly id: string;
  getValue(key: string, options: { secret: string }): Promise<string | null>;
  setValue(key: string, value: string, options: { secret: string }): Promise<void>;
}

// ---- Admin app types (the admin app's own objects; here so that no module needs the admin app for a type) ----

export interface InternalApiKeyBase {
  readonly id: string;
  readonly description: string;
  /**
   * Null when the key set never expires: the API always gives new key sets an expiry, but the platform's own key sets
   * (e.g. the ones `npm start` makes for its projects) have none.
   */
  readonly expiresAt: Date | null;
  readonly manuallyRevokedAt: Date | null;
  readonly createdAt: Date;
  isValid(): boolean;
  whyInvalid(): "expired" | "manually-revoked" | null;
  revoke(): Promise<void>;
}
export type InternalApiKey = InternalApiKeyBase & {
  readonly publishableClientKey: { lastFour: string } | null;
  readonly secretServerKey: { lastFour: string } | null;
  readonly superSecretAdminKey: { lastFour: string } | null;
};
export type InternalApiKeyFirstView = InternalApiKeyBase & {
  readonly publishableClientKey?: string;
  readonly secretServerKey?: string;
  readonly superSecretAdminKey?: string;
};
export interface InternalApiKeyCreateOptions {
  description: string;
  expiresAt: Date;
  hasPublishableClientKey: boolean;
  hasSecretServerKey: boolean;
  hasSuperSecretAdminKey: boolean;
}
export interface PermissionDefinition {
  readonly id: string;
  readonly description?: string;
  readonly containedPermissionIds: string[];
}
export interface PermissionDefinitionCreateOptions {
  id: string;
  description?: string;
  containedPermissionIds: string[];
}
export interface AdminProjectConfig {
  readonly signUpEnabled: boolean;
  readonly credentialEnabled: boolean;
  readonly magicLinkEnabled: boolean;
  readonly passkeyEnabled: boolean;
  readonly clientTeamCreationEnabled: boolean;
  readonly clientUserDeletionEnabled: boolean;
  readonly allowLocalhost: boolean;
  readonly allowUserApiKeys: boolean;
  readonly allowTeamApiKeys: boolean;
  readonly createTeamOnSignUp: boolean;
  readonly oauthAccountMergeStrategy: "link_method" | "raise_error" | "allow_duplicates";
  readonly oauthProviders: readonly ({ id: string } & Json)[];
  readonly domains: readonly { domain: string; handlerPath: string }[];
  readonly emailConfig?: Json;
  readonly emailTheme: string;
  readonly teamCreatorDefaultPermissions: readonly { id: string }[];
  readonly teamMemberDefaultPermissions: readonly { id: string }[];
  readonly userDefaultPermissions: readonly { id: string }[];
}
export interface AdminProjectUpdateOptions {
  displayName?: string;
  description?: string;
  isProductionMode?: boolean;
  logoUrl?: string | null;
  fullLogoUrl?: string | null;
  config?: Partial<Omit<AdminProjectConfig, "oauthProviders" | "domains">> & {
    oauthProviders?: Json[];
    domains?: { domain: string; handlerPath: string }[];
  };
}
export interface AdminProject {
  readonly id: string;
  readonly displayName: string;
  readonly description: string | null;
  readonly createdAt: Date;
  readonly isProductionMode: boolean;
  readonly ownerTeamId: string | null;
  readonly logoUrl: string | null | undefined;
  readonly fullLogoUrl: string | null | undefined;
  readonly config: AdminProjectConfig;
  update(update: AdminProjectUpdateOptions): Promise<void>;
  delete(): Promise<void>;
  transfer(user: CurrentUser, newTeamId: string): Promise<void>;
  getConfig(): Promise<Json>;
  updateConfig(config: Json): Promise<void>;
}

/** `user.createProject(...)`: like a project update, plus the owner team (one of the user's teams). */
export interface AdminProjectCreateOptions extends Omit<AdminProjectUpdateOptions, "displayName"> {
  displayName: string;
  /** The team that owns the project; its members manage it. The user must be a member. */
  teamId: string;
}

/** GET /internal/metrics (wire shape, as the published SDK returns it). Days are UTC dates, oldest first. */
export interface AdminMetrics {
  readonly total_users: number;
  readonly daily_users: readonly { readonly date: string; readonly activity: number }[];
  readonly daily_active_users: readonly { readonly date: string; readonly activity: number }[];
  /** ISO country code → users. */
  readonly users_by_country: Readonly<Record<string, number>>;
  readonly recently_registered: readonly Json[];
  readonly recently_active: readonly Json[];
  readonly login_methods: readonly { readonly method: string; readonly count: number }[];
}

/** `queryAnalytics` options (as the published SDK's): a named query of the analytics API and its params. */
export interface AnalyticsQueryOptions {
  /** page_views_per_day, active_users_per_day, events_per_day, event_types, top_pages or recent_events. */
  query: string;
  params?: Record<string, unknown>;
  timeout_ms?: number;
  include_all_branches?: boolean;
}

export interface AnalyticsQueryResponse {
  readonly result: Record<string, unknown>[];
  readonly query_id: string;
}

/**
 * A project the signed-in internal user manages, with an admin app that acts as that user (dashboard mode). Named by a
 * type query, not an import: the admin app's module imports this one.
 */
export type AdminOwnedProject = AdminProject & { readonly app: import("./admin-app.ts").StackAdminApp };

/** Filters of the audit log (GET /internal/audit-log; services/identity/src/audit/README.md). */
export interface AuditLogFilter {
  readonly actorType?: "admin_user" | "admin_key" | "server_key" | "development_override";
  readonly actorId?: string;
  readonly resourceType?: string;
  readonly resourceId?: string;
  readonly action?: string;
  readonly since?: Date;
  readonly until?: Date;
}

/** One audit-log entry: who (actor), what (action on a resource, before/after without secrets), when, from where. */
export interface AuditLogEntry {
  readonly id: string;
  readonly seq: number;
  readonly occurred_at_millis: number;
  readonly actor: { readonly type: string; readonly id: string; readonly project_id: string; readonly ip: string; readonly user_agent: string };
  readonly action: string;
  readonly resource_type: string;
  readonly resource_id: string;
  readonly before: unknown;
  readonly after: unknown;
  readonly request_id: string;
  readonly request_line: string;
  readonly prev_hash: string;
  readonly hash: string;
}
