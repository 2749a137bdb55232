/**
 * What a user has besides the user itself: sessions and passkeys (Auth), permissions, items and customers (payments),
 * contact channels, notification categories, OAuth providers and connections, API keys.
 */
import type { Result } from "@vestibule/sdk-core";
import type { KnownErrorOfName } from "./app.ts";

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

