/**
 * What the user and contact channel services share: row → message conversion, the aggregate key of a user, the
 * "user changed" event, and turning the database's uniqueness verdicts into the contract's errors.
 */
import { create } from "@bufbuild/protobuf";
import { ContactChannelSchema, UserSchema, type ContactChannel, type User } from "@vestibule/proto/identity/v1/user";
import { uniqueViolation, type PoolClient, type Queryable } from "@vestibule/shared/db";
import type { Outbox } from "@vestibule/shared/events";
import { knownError, statusError } from "@vestibule/shared/errors";
import { isUuid } from "@vestibule/shared/ids";
import { loginMethodsOf, type UserAggregateKey } from "./domain/users.ts";
import { IdentityEvents } from "./events.ts";
import { CHANNEL_CONSTRAINTS, contactChannelStore, type ContactChannelRow } from "./store/contact-channel-store.ts";
import { userStore, type ShownUserRow, type UserRow } from "./store/user-store.ts";

export function toUserMessage(row: ShownUserRow): User {
  return create(UserSchema, {
    id: row.id,
    projectId: row.project_id,
    displayName: row.display_name ?? undefined,
    primaryEmail: row.primary_email ?? undefined,
    primaryEmailVerified: row.primary_email_verified,
    primaryEmailAuthEnabled: row.primary_email_auth_enabled,
    profileImageUrl: row.profile_image_url ?? undefined,
    signedUpAtMillis: BigInt(row.signed_up_at_millis),
    lastActiveAtMillis: BigInt(row.last_active_at_millis),
    clientMetadataJson: row.client_metadata ?? "null",
    clientReadOnlyMetadataJson: row.client_read_only_metadata ?? "null",
    serverMetadataJson: row.server_metadata ?? "null",
    hasPassword: row.has_password,
    otpAuthEnabled: row.otp_auth_enabled,
    passkeyAuthEnabled: row.passkey_auth_enabled,
    requiresTotpMfa: row.requires_totp_mfa,
    isAnonymous: row.is_anonymous,
    selectedTeamId: row.selected_team_id ?? undefined,
    oauthProviders: row.oauth_providers.map((p) => ({ id: p.id, accountId: p.account_id, email: p.email ?? undefined })),
    version: BigInt(row.version),
    riskScores: { signUpBot: row.risk_score_bot, signUpFreeTrialAbuse: row.risk_score_free_trial_abuse },
    restrictedByAdmin: row.restricted_by_admin,
    restrictedByAdminReason: row.restricted_by_admin_reason ?? undefined,
    restrictedByAdminPrivateDetails: row.restricted_by_admin_private_details ?? undefined,
    countryCode: row.country_code ?? undefined,
  });
}

export function toContactChannelMessage(row: ContactChannelRow): ContactChannel {
  return create(ContactChannelSchema, {
    id: row.id,
    userId: row.user_id,
    type: row.type,
    value: row.value,
    isVerified: row.is_verified,
    isPrimary: row.is_primary,
    usedForAuth: row.used_for_auth,
  });
}

/** What the aggregate counters know about a user. */
export function aggregateKeyOf(row: Pick<UserRow, "project_id" | "sign_up_day" | "is_anonymous" | "country_code" | "has_password" | "otp_auth_enabled" | "passkey_auth_enabled" | "oauth_providers">): UserAggregateKey {
  return {
    projectId: row.project_id,
    signUpDay: row.sign_up_day,
    isAnonymous: row.is_anonymous,
    countryCode: row.country_code,
    loginMethods: loginMethodsOf({
      hasPassword: row.has_password,
      otpAuthEnabled: row.otp_auth_enabled,
      passkeyAuthEnabled: row.passkey_auth_enabled,
      oauthProviderIds: row.oauth_providers.map((p) => p.id),
    }),
  };
}

/** Reads a user or fails with the contract's not-found error for where the id came from. */
export async function requireUser(db: Queryable, projectId: string, userId: string, opts: { forUpdate?: boolean; idFromBody?: boolean } = {}): Promise<UserRow> {
  const row = isUuid(userId) ? await userStore.get(db, projectId, userId, opts.forUpdate) : undefined;
  if (!row) throw opts.idFromBody ? knownError("USER_ID_DOES_NOT_EXIST", { user_id: userId }) : knownError("USER_NOT_FOUND");
  return row;
}

/**
 * After a change that alters the user as shown (its row or its primary channel): bumps the version unless the row
 * update already did, and writes identity.user.updated.v1 with the full user into the outbox of the same transaction.
 */
export async function publishUserUpdated(tx: PoolClient, outbox: Outbox, projectId: string, userId: string, opts: { bumpVersion: boolean }): Promise<User> {
  if (opts.bumpVersion) await userStore.bumpVersion(tx, userId);
  const user = toUserMessage((await userStore.get(tx, projectId, userId))!);
  await outbox.enqueue(tx, IdentityEvents.userUpdated, { user }, { projectId });
  return user;
}

export async function publishChannelChanged(tx: PoolClient, outbox: Outbox, channel: ContactChannelRow, deleted = false): Promise<void> {
  await outbox.enqueue(
    tx,
    IdentityEvents.contactChannelUpdated,
    { projectId: channel.project_id, contactChannel: toContactChannelMessage(channel), deleted },
    { projectId: channel.project_id },
  );
}

/** Which error a sign-in address taken by someone else becomes: from the user API or the contact channel API. */
export type EmailConflictKind = "user" | "channel";

/** The contract error for `email` being used for auth by another user; `existingVerified` = that channel's state. */
export function emailTakenError(kind: EmailConflictKind, email: string, existingVerified: boolean): Error {
  return kind === "user"
    ? knownError("USER_EMAIL_ALREADY_EXISTS", { email, would_work_if_email_was_verified: !existingVerified })
    : knownError("CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE", {
        type: "email",
        contact_channel_value: email,
        would_work_if_email_was_verified: false,
      });
}

/** Fails when `email` is used for auth by a user other than `userId`. */
export async function ensureAuthEmailFree(db: Queryable, projectId: string, email: string, userId: string, kind: EmailConflictKind): Promise<void> {
  const existing = await contactChannelStore.findAuthChannel(db, projectId, "email", email);
  if (existing && existing.user_id !== userId) throw emailTakenError(kind, email, existing.is_verified);
}

export const CHANNEL_ALREADY_EXISTS = "Contact channel already exists";

/**
 * Maps a unique violation of the channel indexes (a concurrent writer won the race the in-transaction checks could
 * not see) to the contract error; other errors pass through. Runs after the failed transaction rolled back.
 */
export async function translateChannelConflict(err: unknown, db: Queryable, projectId: string, email: string | undefined, kind: EmailConflictKind): Promise<never> {
  const constraint = uniqueViolation(err);
  if (constraint === CHANNEL_CONSTRAINTS.authValue && email !== undefined) {
    const existing = await contactChannelStore.findAuthChannel(db, projectId, "email", email);
    throw emailTakenError(kind, email, existing?.is_verified ?? true);
  }
  if (constraint === CHANNEL_CONSTRAINTS.userValue) throw statusError(400, CHANNEL_ALREADY_EXISTS);
  if (constraint === CHANNEL_CONSTRAINTS.primary) throw statusError(409, "The user's primary contact channel was changed concurrently; retry.");
  throw err;
}
