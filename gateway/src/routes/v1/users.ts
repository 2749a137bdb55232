import { Type, type Static } from "typebox";
import type { User } from "@vestibule/proto/identity/v1/user";
import type { UpdateUserRequest } from "@vestibule/proto/identity/v1/user_service";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { UpdateUserRequestSchema } from "@vestibule/proto/identity/v1/user_service";
import { knownError, statusError } from "@vestibule/shared/errors";
import { Base64, DisplayName, Email, ImageUrl, LooseEmail, Metadata, Nullable, Obj, OneOf, Optional, PAGE_LIMIT_MAX, PageLimit, QueryBoolean, QueryInteger, UserIdOrMe, Uuid } from "../../validation/index.ts";
import type { RequestAuth } from "../../auth/request-auth.ts";
import type { ServiceClients } from "../../clients.ts";
import type { UserCache } from "../../auth/user-cache.ts";
import { clientUserView, serverUserView, userViewProject } from "../../views/user.ts";
import { defineRoute } from "../route.ts";
import { resolveUserId } from "../helpers.ts";
import { AccessType } from "@vestibule/proto/teams_permissions/v1/team";
import { selectedTeamOf, selectedTeamsOf } from "../selected-teams.ts";

/** The latest sign-up bound GET /users accepts: the end of the year 9999 (what dates hold), in epoch milliseconds. */
const MAX_MILLIS = 253_402_300_799_999;

const ANY = ["client", "server", "admin"] as const;
const SERVER = ["server", "admin"] as const;

const ClientUserUpdate = Obj({
  display_name: Optional(Nullable(DisplayName())),
  profile_image_url: Optional(Nullable(ImageUrl())),
  client_metadata: Optional(Metadata()),
  selected_team_id: Optional(Nullable(Uuid())),
  totp_secret_base64: Optional(Nullable(Base64())),
  otp_auth_enabled: Optional(Type.Boolean()),
  passkey_auth_enabled: Optional(Type.Boolean()),
  // The current SDK may send the primary e-mail (latest-sdk.md B); it is stored unverified unless it already was.
  primary_email: Optional(Nullable(Email())),
});

const RiskScore = Type.Integer({ minimum: 0, maximum: 100 });

const serverWritable = {
  display_name: Optional(Nullable(DisplayName())),
  profile_image_url: Optional(Nullable(ImageUrl())),
  client_metadata: Optional(Metadata()),
  client_read_only_metadata: Optional(Metadata()),
  server_metadata: Optional(Metadata()),
  // yup's plain email() as the published backend's users schema (e.g. "invalid_email@gmai" is accepted; issue 13).
  primary_email: Optional(Nullable(LooseEmail({ maxLength: 256 }))),
  primary_email_verified: Optional(Type.Boolean()),
  primary_email_auth_enabled: Optional(Type.Boolean()),
  passkey_auth_enabled: Optional(Type.Boolean()),
  password: Optional(Nullable(Type.String({ maxLength: 70 }))),
  password_hash: Optional(Type.String()),
  otp_auth_enabled: Optional(Type.Boolean()),
  totp_secret_base64: Optional(Nullable(Base64())),
  // Restriction by an administrator (issue 13): a public reason and private details, both only with restricted_by_admin.
  restricted_by_admin: Optional(Type.Boolean()),
  restricted_by_admin_reason: Optional(Nullable(Type.String({ maxLength: 1000 }))),
  restricted_by_admin_private_details: Optional(Nullable(Type.String({ maxLength: 10_000 }))),
  country_code: Optional(Nullable(Type.String({ pattern: "^[A-Za-z]{2}$" }))),
  risk_scores: Optional(Obj({ sign_up: Obj({ bot: RiskScore, free_trial_abuse: RiskScore }) })),
};

const ServerUserUpdate = Obj({
  ...serverWritable,
  selected_team_id: Optional(Nullable(Uuid())),
  is_anonymous: Optional(OneOf([false])),
});

const ServerUserCreate = Obj({
  ...serverWritable,
  oauth_providers: Optional(Type.Array(Obj({ id: Type.String(), account_id: Type.String(), email: Nullable(Type.String()) }))),
  is_anonymous: Optional(Type.Boolean()),
});

type ServerUpdate = Static<typeof ServerUserUpdate>;

/**
 * A `data:` profile image must be a base64 image the way the published backend checks it: "Invalid profile image URL"
 * (400 text) otherwise (issue 13). http(s) URLs are not fetched.
 */
function checkProfileImage(url: string | null | undefined): void {
  if (!url || !url.startsWith("data:")) return;
  const m = /^data:image\/[a-z0-9.+-]+;base64,([A-Za-z0-9+/]*={0,2})$/i.exec(url);
  if (!m || m[1]!.length === 0 || m[1]!.length % 4 !== 0) throw statusError(400, "Invalid profile image URL");
}

function metadataJson(v: unknown): string | undefined {
  return v === undefined ? undefined : JSON.stringify(v);
}

function nullable(v: string | null | undefined): { value?: string } | undefined {
  return v === undefined ? undefined : v === null ? {} : { value: v };
}

/** Identity's part of a user update (profile, e-mail, metadata, flags). Credentials go to the auth service. */
function identityUpdate(projectId: string, userId: string, b: Partial<ServerUpdate>): MessageInitShape<typeof UpdateUserRequestSchema> {
  return {
    projectId,
    userId,
    displayName: nullable(b.display_name === "" ? null : b.display_name),
    primaryEmail: nullable(b.primary_email),
    primaryEmailVerified: b.primary_email_verified,
    primaryEmailAuthEnabled: b.primary_email_auth_enabled,
    profileImageUrl: nullable(b.profile_image_url),
    clientMetadataJson: metadataJson(b.client_metadata),
    clientReadOnlyMetadataJson: metadataJson(b.client_read_only_metadata),
    serverMetadataJson: metadataJson(b.server_metadata),
    selectedTeamId: nullable(b.selected_team_id),
    otpAuthEnabled: b.otp_auth_enabled,
    passkeyAuthEnabled: b.passkey_auth_enabled,
    isAnonymous: b.is_anonymous,
    restrictedByAdmin: b.restricted_by_admin,
    restrictedByAdminReason: nullable(b.restricted_by_admin_reason),
    restrictedByAdminPrivateDetails: nullable(b.restricted_by_admin_private_details),
    countryCode: nullable(b.country_code),
    riskScores: b.risk_scores && { signUpBot: b.risk_scores.sign_up.bot, signUpFreeTrialAbuse: b.risk_scores.sign_up.free_trial_abuse },
  };
}

/**
 * Applies an update: credential changes through auth (which revokes sessions and keeps identity's has_password in
 * sync), the TOTP secret through auth (which keeps it encrypted and sets identity's requires_totp_mfa; null
 * disables multi-factor authentication), the rest through identity. A selected team must be one the user belongs to
 * (the teams-permissions service answers USER_NOT_FOUND / TEAM_MEMBERSHIP_NOT_FOUND).
 */
async function updateUser(
  clients: ServiceClients,
  users: UserCache,
  auth: RequestAuth,
  userId: string,
  b: Partial<ServerUpdate>,
): Promise<User> {
  if (b.password !== undefined && b.password_hash !== undefined) throw statusError(400, "Cannot set both password and password_hash at the same time.");
  if (b.selected_team_id) {
    await clients.teamMembers.getTeamMember({ projectId: auth.projectId, caller: { accessType: AccessType.SERVER }, teamId: b.selected_team_id, userId });
  }
  if (b.password !== undefined || b.password_hash !== undefined) {
    if (b.password !== undefined && b.password !== null && auth.project.renderedConfig && !(auth.project.adminConfig.credential_enabled as boolean)) {
      throw statusError(400, "Cannot set password when password authentication is not enabled for this project.");
    }
    await clients.passwords.setUserCredential({
      projectId: auth.projectId,
      userId,
      credential:
        b.password_hash !== undefined
          ? { case: "passwordHash", value: b.password_hash }
          : b.password === null
            ? { case: "clear", value: true }
            : { case: "password", value: b.password! },
    });
  }
  if (b.totp_secret_base64 !== undefined) await setTotpSecret(clients, auth.projectId, userId, b.totp_secret_base64);
  const { user } = await clients.users.updateUser(identityUpdate(auth.projectId, userId, b));
  users.put(user!);
  return user!;
}

/** Sets (base64 secret) or removes (null) a user's TOTP secret in the auth service. */
async function setTotpSecret(clients: ServiceClients, projectId: string, userId: string, secretBase64: string | null): Promise<void> {
  await clients.mfa.setTotpSecret({ projectId, userId, secret: secretBase64 === null ? undefined : Buffer.from(secretBase64, "base64") });
}

export const getMeRoute = defineRoute({
  method: "GET",
  path: "/users/me",
  summary: "The signed-in user",
  tags: ["Users"],
  access: ANY,
  schemas: {},
  async handler({ auth, teamCache }) {
    if (!auth.user) throw knownError("CANNOT_GET_OWN_USER_WITHOUT_USER");
    const team = await selectedTeamOf(teamCache, auth.user.record);
    const project = userViewProject(auth.project);
    return { json: auth.type === "client" ? clientUserView(auth.user.record, team, project) : serverUserView(auth.user.record, team, project) };
  },
});

export const patchMeClientRoute = defineRoute({
  method: "PATCH",
  path: "/users/me",
  summary: "Update the signed-in user",
  tags: ["Users"],
  access: ANY,
  schemas: { body: Obj({ ...ClientUserUpdate.properties, ...ServerUserUpdate.properties }) },
  async handler({ auth, body, clients, users, teamCache, req }) {
    if (!auth.user) throw knownError("CANNOT_GET_OWN_USER_WITHOUT_USER");
    if (auth.type === "client") {
      const allowed = new Set(Object.keys(ClientUserUpdate.properties));
      const extra = Object.keys(body).filter((k) => !allowed.has(k));
      if (extra.length) {
        throw knownError("SCHEMA_ERROR", { message: `Request validation failed on PATCH ${req.url.split("?")[0]}:\n  - body contains unknown properties: ${extra.join(", ")}` });
      }
      if (body.profile_image_url && !/^data:image\/[a-z0-9.+-]+;base64,/i.test(body.profile_image_url)) {
        throw statusError(400, "Profile image URL must be a base64-encoded data URL of an image (data:image/...;base64,...).");
      }
      if (body.passkey_auth_enabled === true) throw statusError(400, "Passkey authentication can only be enabled by registering a passkey.");
      if (body.otp_auth_enabled === true && !(auth.project.adminConfig.magic_link_enabled as boolean)) {
        throw statusError(400, "OTP authentication is not enabled for this project.");
      }
    }
    const user = await updateUser(clients, users, auth, auth.user.id, body);
    const team = await selectedTeamOf(teamCache, user);
    const project = userViewProject(auth.project);
    return { json: auth.type === "client" ? clientUserView(user, team, project) : serverUserView(user, team, project) };
  },
});

export const deleteMeRoute = defineRoute({
  method: "DELETE",
  path: "/users/me",
  summary: "Delete the signed-in user",
  tags: ["Users"],
  access: ANY,
  schemas: {},
  async handler({ auth, clients, users }) {
    if (!auth.user) throw knownError("CANNOT_GET_OWN_USER_WITHOUT_USER");
    if (auth.type === "client" && !(auth.project.adminConfig.client_user_deletion_enabled as boolean)) {
      throw statusError(400, "Client user deletion is not enabled for this project");
    }
    await clients.accounts.deleteAccount({ projectId: auth.projectId, userId: auth.user.id });
    users.invalidate(auth.projectId, auth.user.id);
    return { json: { success: true } };
  },
});

export const createUserRoute = defineRoute({
  method: "POST",
  path: "/users",
  summary: "Create a user",
  tags: ["Users"],
  access: SERVER,
  schemas: { body: ServerUserCreate },
  async handler({ auth, body, clients, users, teamCache }) {
    if (body.password != null && body.password_hash !== undefined) throw statusError(400, "Cannot set both password and password_hash at the same time.");
    checkProfileImage(body.profile_image_url);
    if (!body.primary_email && (body.primary_email_auth_enabled || body.primary_email_verified)) {
      throw statusError(400, "primary_email_auth_enabled and primary_email_verified need a primary_email.");
    }
    if (body.password != null && !(auth.project.adminConfig.credential_enabled as boolean)) {
      throw statusError(400, "Cannot set password when password authentication is not enabled for this project.");
    }
    // A secret that cannot be used is refused before anything is created.
    if (body.totp_secret_base64) assertTotpSecretLength(body.totp_secret_base64);
    const createUser = {
      projectId: auth.projectId,
      displayName: body.display_name === "" ? undefined : (body.display_name ?? undefined),
      primaryEmail: body.primary_email ?? undefined,
      primaryEmailVerified: body.primary_email_verified ?? false,
      primaryEmailAuthEnabled: body.primary_email_auth_enabled ?? false,
      profileImageUrl: body.profile_image_url ?? undefined,
      clientMetadataJson: metadataJson(body.client_metadata) ?? "",
      clientReadOnlyMetadataJson: metadataJson(body.client_read_only_metadata) ?? "",
      serverMetadataJson: metadataJson(body.server_metadata) ?? "",
      hasPassword: body.password != null || body.password_hash !== undefined,
      otpAuthEnabled: body.otp_auth_enabled ?? false,
      passkeyAuthEnabled: body.passkey_auth_enabled ?? false,
      isAnonymous: body.is_anonymous ?? false,
      oauthProviders: (body.oauth_providers ?? []).map((p) => ({ id: p.id, accountId: p.account_id, email: p.email ?? undefined })),
      signUpMethod: "server",
      restrictedByAdmin: body.restricted_by_admin ?? false,
      restrictedByAdminReason: body.restricted_by_admin_reason ?? undefined,
      restrictedByAdminPrivateDetails: body.restricted_by_admin_private_details ?? undefined,
      countryCode: body.country_code ?? undefined,
      riskScores: body.risk_scores && { signUpBot: body.risk_scores.sign_up.bot, signUpFreeTrialAbuse: body.risk_scores.sign_up.free_trial_abuse },
    };
    // One auth call creates the user with its credentials (password or hash, TOTP secret, OAuth links), or nothing.
    const { userId } = await clients.passwords.createUserWithCredential({
      user: createUser,
      credential:
        body.password_hash !== undefined
          ? { case: "passwordHash", value: body.password_hash }
          : body.password != null
            ? { case: "password", value: body.password }
            : { case: undefined },
      totpSecret: body.totp_secret_base64 ? Buffer.from(body.totp_secret_base64, "base64") : undefined,
    });
    const { user } = await clients.users.getUser({ projectId: auth.projectId, userId });
    users.put(user!);
    return { status: 201, json: serverUserView(user!, await selectedTeamOf(teamCache, user!), userViewProject(auth.project)) };
  },
});

export const listUsersRoute = defineRoute({
  method: "GET",
  path: "/users",
  summary: "List users (cursor-paged, by sign-up time or last activity; restricted and anonymous users only when asked for)",
  tags: ["Users"],
  access: SERVER,
  schemas: {
    query: Obj({
      limit: Optional(PageLimit()),
      cursor: Optional(Uuid()),
      order_by: Optional(OneOf(["signed_up_at", "last_active_at"])),
      desc: Optional(QueryBoolean()),
      query: Optional(Type.String()),
      include_anonymous: Optional(QueryBoolean()),
      include_restricted: Optional(QueryBoolean()),
      only_anonymous: Optional(QueryBoolean()),
      team_id: Optional(Uuid()),
      // The dashboard's users-table filters (Vestibule extensions; identity answers 400 to an impossible time).
      email_verified: Optional(QueryBoolean()),
      has_mfa: Optional(QueryBoolean()),
      auth_method: Optional(OneOf(["password", "otp", "passkey", "oauth"])),
      signed_up_after_millis: Optional(QueryInteger({ minimum: 0, maximum: MAX_MILLIS })),
      signed_up_before_millis: Optional(QueryInteger({ minimum: 0, maximum: MAX_MILLIS })),
      only_restricted: Optional(QueryBoolean()),
    }),
  },
  async handler({ auth, query, clients, teamCache }) {
    const project = userViewProject(auth.project);
    // `team_id`: the team's members (TEAM_NOT_FOUND for an unknown team), paged by identity like any listing.
    const members = query.team_id
      ? (await clients.teamMembers.listTeamMembers({ projectId: auth.projectId, caller: { accessType: AccessType.SERVER }, teamId: query.team_id })).members
      : undefined;
    const res = await clients.users.listUsers({
      projectId: auth.projectId,
      // Without `limit` the contract lists every user; a page is capped (issue 18), with a cursor when there are more.
      limit: query.limit ?? PAGE_LIMIT_MAX,
      cursor: query.cursor ?? "",
      desc: query.desc === true,
      query: query.query ?? "",
      includeAnonymous: query.include_anonymous === true,
      userIds: members?.map((m) => m.userId) ?? [],
      restrictToUserIds: members !== undefined,
      includeRestricted: query.include_restricted === true,
      requireEmailVerification: project.requireEmailVerification,
      onlyAnonymous: query.only_anonymous === true,
      orderBy: query.order_by ?? "",
      emailVerified: query.email_verified,
      hasMfa: query.has_mfa,
      authMethod: query.auth_method ?? "",
      signedUpAfterMillis: BigInt(query.signed_up_after_millis ?? 0),
      signedUpBeforeMillis: BigInt(query.signed_up_before_millis ?? 0),
      onlyRestricted: query.only_restricted === true,
    });
    const selected = await selectedTeamsOf(teamCache, auth.projectId, res.users);
    return {
      json: {
        items: res.users.map((u) => serverUserView(u, selected.get(u.id), project)),
        is_paginated: true,
        pagination: { next_cursor: res.nextCursor || null },
      },
    };
  },
});

const UserParams = Obj({ user_id: UserIdOrMe() });

export const getUserRoute = defineRoute({
  method: "GET",
  path: "/users/:user_id",
  summary: "Read a user",
  tags: ["Users"],
  access: SERVER,
  schemas: { params: UserParams },
  async handler({ auth, params, users, teamCache }) {
    const userId = resolveUserId(auth, params.user_id);
    const user = await users.get(auth.projectId, userId);
    if (!user) throw knownError("USER_NOT_FOUND");
    return { json: serverUserView(user, await selectedTeamOf(teamCache, user), userViewProject(auth.project)) };
  },
});

export const patchUserRoute = defineRoute({
  method: "PATCH",
  path: "/users/:user_id",
  summary: "Update a user",
  tags: ["Users"],
  access: SERVER,
  schemas: { params: UserParams, body: ServerUserUpdate },
  async handler({ auth, params, body, clients, users, teamCache }) {
    checkProfileImage(body.profile_image_url);
    const user = await updateUser(clients, users, auth, resolveUserId(auth, params.user_id), body);
    return { json: serverUserView(user, await selectedTeamOf(teamCache, user), userViewProject(auth.project)) };
  },
});

export const deleteUserRoute = defineRoute({
  method: "DELETE",
  path: "/users/:user_id",
  summary: "Delete a user",
  tags: ["Users"],
  access: SERVER,
  schemas: { params: UserParams },
  async handler({ auth, params, clients, users }) {
    const userId = resolveUserId(auth, params.user_id);
    await clients.accounts.deleteAccount({ projectId: auth.projectId, userId });
    users.invalidate(auth.projectId, userId);
    return { json: { success: true } };
  },
});

export const metricsRoute = defineRoute({
  method: "GET",
  path: "/internal/metrics",
  summary: "Dashboard metrics: totals, daily sign-ups and active users, countries, login methods",
  tags: ["Metrics (admin)"],
  access: ["admin"],
  schemas: { query: Obj({ include_anonymous: Optional(QueryBoolean()) }) },
  async handler({ auth, query, clients }) {
    const res = await clients.users.getUserMetrics({ projectId: auth.projectId, includeAnonymous: query.include_anonymous === true });
    return { json: JSON.parse(res.metricsJson) as unknown };
  },
});

export const activityReportRoute = defineRoute({
  method: "GET",
  path: "/internal/metrics/activity",
  summary: "Dashboard overview: sign-ups and active users per day, week or month over the last N days, and weekly retention cohorts",
  tags: ["Metrics (admin)"],
  access: ["admin"],
  schemas: {
    query: Obj({
      days: Optional(QueryInteger({ minimum: 1, maximum: 366 })),
      granularity: Optional(OneOf(["day", "week", "month"] as const)),
      include_anonymous: Optional(QueryBoolean()),
    }),
  },
  async handler({ auth, query, clients }) {
    const res = await clients.users.getUserActivityReport({
      projectId: auth.projectId,
      includeAnonymous: query.include_anonymous === true,
      days: query.days ?? 30,
      granularity: query.granularity ?? "day",
    });
    return { json: JSON.parse(res.reportJson) as unknown };
  },
});

/** The auth service's rule (16 to 64 bytes), checked up front so that a user is not created and deleted again. */
function assertTotpSecretLength(secretBase64: string): void {
  const bytes = Buffer.from(secretBase64, "base64").length;
  if (bytes < 16 || bytes > 64) throw statusError(400, `totp_secret_base64 must decode to 16 to 64 bytes; got ${bytes}.`);
}

export type { UpdateUserRequest };
