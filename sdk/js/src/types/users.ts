/** Users (client, current and server views) and teams: the two reference each other, so they share this module. */
import type { KnownErrorOfName, ReadonlyJson } from "./app.ts";
import type {
  ActiveSession,
  ApiKeyCreationOptions,
  Auth,
  ContactChannel,
  ContactChannelCreateOptions,
  Customer,
  NotificationCategory,
  OAuthConnection,
  OAuthProvider,
  Passkey,
  ServerContactChannel,
  ServerContactChannelCreateOptions,
  Session,
  TeamApiKey,
  TeamApiKeyFirstView,
  TeamPermission,
  UserApiKey,
  UserApiKeyFirstView,
} from "./resources.ts";

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
  /** "lastActiveAt" is a Vestibule extension (GET /users?order_by=last_active_at). */
  orderBy?: "signedUpAt" | "lastActiveAt";
  desc?: boolean;
  query?: string;
  includeAnonymous?: boolean;
  /** Only anonymous users (Vestibule extension; GET /users?only_anonymous=true, implies includeAnonymous). */
  onlyAnonymous?: boolean;
  /** Also users who are restricted (unverified where verification is required, or restricted by an admin). */
  includeRestricted?: boolean;
  // Filters of the dashboard's users table (Vestibule extensions of GET /users).
  /** Only restricted users (implies includeRestricted). */
  onlyRestricted?: boolean;
  /** Whether the primary e-mail is verified (false includes users without one). */
  emailVerified?: boolean;
  /** Whether two-factor (TOTP) is on. */
  hasMfa?: boolean;
  /** A sign-in method the user has. */
  authMethod?: "password" | "otp" | "passkey" | "oauth";
  /** Signed up at or after this time. */
  signedUpAfter?: Date;
  /** Signed up before this time. */
  signedUpBefore?: Date;
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
  /**
   * Admin apps only: a single-use ticket that opens an impersonation session of this user (default lifetime 1 hour)
   * when the app's handler page `<handlerPath>/impersonate?ticket=<ticket>` exchanges it within 60 seconds.
   */
  createImpersonationTicket(options?: { expiresInMillis?: number }): Promise<{ ticket: string; expiresAt: Date }>;
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

