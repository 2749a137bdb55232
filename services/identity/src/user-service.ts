import type { ServiceImpl } from "@connectrpc/connect";
import { FindUserByAuthEmailResponseSchema, UserService, type FindUserByAuthEmailResponse, type ListUsersRequest, type UpdateUserRequest } from "@vestibule/proto/identity/v1/user_service";
import { create } from "@bufbuild/protobuf";
import { uniqueViolation, withTransaction, type PoolClient } from "@vestibule/shared/db";
import { knownError, statusError } from "@vestibule/shared/errors";
import { isPublicIp, lookupIp } from "@vestibule/shared/geoip";
import { isUuid, newId } from "@vestibule/shared/ids";
import type { ServiceContext } from "@vestibule/shared/service";
import {
  aggregateDeltas,
  lastUtcDays,
  MetadataError,
  normalizeDisplayName,
  normalizeEmail,
  parseMetadataJson,
  type AggregateDeltas,
} from "./domain/users.ts";
import { activityReport, bucketStart, GRANULARITIES, type Granularity } from "./domain/activity-report.ts";
import { IdentityEvents } from "./events.ts";
import { createNewUserSetup } from "./new-user-setup.ts";
import { contactChannelStore, type ContactChannelRow } from "./store/contact-channel-store.ts";
import type { SearchPools } from "./store/search-pools.ts";
import { userStore, type AuthMethod, type ShownUserRow, type StoredOAuthProvider, type UserFields, type UserFilters, type UserRow } from "./store/user-store.ts";
import {
  aggregateKeyOf,
  ensureAuthEmailFree,
  publishChannelChanged,
  requireUser,
  toUserMessage,
  translateChannelConflict,
} from "./users.ts";

/** Recently registered / active users shown by the metrics. */
const METRICS_RECENT_USERS = 5;
/** Data points of the daily series: today and the 30 days before (as the reference). */
const METRICS_DAYS = 31;
/** The longest range of the activity report (a year, leap day included). */
const REPORT_MAX_DAYS = 366;

function metadata(text: string | undefined, field: string): string | null {
  try {
    return parseMetadataJson(text, field);
  } catch (err) {
    if (err instanceof MetadataError) throw statusError(400, err.message);
    throw err;
  }
}

function optionalUuid(value: string | undefined, field: string): string | null {
  if (!value) return null;
  if (!isUuid(value)) throw statusError(400, `${field} must be a UUID.`);
  return value.toLowerCase();
}

/** A risk score of the contract: an integer from 0 to 100. */
function riskScore(value: number, field: string): number {
  if (!Number.isInteger(value) || value < 0 || value > 100) throw statusError(400, `${field} must be an integer between 0 and 100.`);
  return value;
}

/** An ISO 3166-1 alpha-2 country code (upper-cased), or null. */
function countryCode(value: string | undefined): string | null {
  if (value === undefined || value === "") return null;
  if (!/^[A-Za-z]{2}$/.test(value)) throw statusError(400, "country_code must be a two-letter ISO 3166-1 country code.");
  return value.toUpperCase();
}

/**
 * The administrator restriction after a create or update: a reason or private details need restricted_by_admin
 * (the contract's 400 texts); lifting the restriction clears both. Empty strings store null.
 */
function adminRestriction(
  restricted: boolean,
  reason: string | null | undefined,
  details: string | null | undefined,
  before?: { reason: string | null; details: string | null },
): { restricted_by_admin: boolean; restricted_by_admin_reason: string | null; restricted_by_admin_private_details: string | null } {
  const r = reason === undefined ? undefined : reason || null;
  const d = details === undefined ? undefined : details || null;
  if (!restricted) {
    if (r != null) throw statusError(400, "restricted_by_admin_reason requires restricted_by_admin=true");
    if (d != null) throw statusError(400, "restricted_by_admin_private_details requires restricted_by_admin=true");
    return { restricted_by_admin: false, restricted_by_admin_reason: null, restricted_by_admin_private_details: null };
  }
  return {
    restricted_by_admin: true,
    restricted_by_admin_reason: r === undefined ? (before?.reason ?? null) : r,
    restricted_by_admin_private_details: d === undefined ? (before?.details ?? null) : d,
  };
}

const AUTH_METHODS: readonly string[] = ["password", "otp", "passkey", "oauth"] satisfies AuthMethod[];
/** Sign-up bounds: from the epoch to the year 9999 (what timestamptz and Date both hold). */
const MAX_MILLIS = 253_402_300_799_999n;

/** The users table's filters of a listing (400 on a bad one); undefined without any. */
function listFilters(req: ListUsersRequest): UserFilters | undefined {
  if (req.authMethod && !AUTH_METHODS.includes(req.authMethod)) throw statusError(400, "auth_method must be password, otp, passkey or oauth.");
  for (const [field, v] of [["signed_up_after_millis", req.signedUpAfterMillis], ["signed_up_before_millis", req.signedUpBeforeMillis]] as const) {
    if (v < 0n || v > MAX_MILLIS) throw statusError(400, `${field} must be a time in epoch milliseconds.`);
  }
  const iso = (v: bigint) => (v > 0n ? new Date(Number(v)).toISOString() : undefined);
  const filters: UserFilters = {
    emailVerified: req.emailVerified,
    hasMfa: req.hasMfa,
    authMethod: (req.authMethod || undefined) as AuthMethod | undefined,
    signedUpAfter: iso(req.signedUpAfterMillis),
    signedUpBefore: iso(req.signedUpBeforeMillis),
    onlyRestricted: req.onlyRestricted ? { requireEmailVerification: req.requireEmailVerification } : undefined,
  };
  return Object.values(filters).some((v) => v !== undefined) ? filters : undefined;
}

function isForeignKeyViolation(err: unknown): boolean {
  return (err as { code?: string } | null)?.code === "23503";
}

/** A user in the contract's server shape, for the metrics' recently registered / active lists. */
function metricsUser(row: ShownUserRow): Record<string, unknown> {
  return {
    id: row.id,
    display_name: row.display_name,
    primary_email: row.primary_email,
    primary_email_verified: row.primary_email_verified,
    primary_email_auth_enabled: row.primary_email_auth_enabled,
    profile_image_url: row.profile_image_url,
    signed_up_at_millis: row.signed_up_at_millis,
    last_active_at_millis: row.last_active_at_millis,
    client_metadata: row.client_metadata === null ? null : JSON.parse(row.client_metadata),
    client_read_only_metadata: row.client_read_only_metadata === null ? null : JSON.parse(row.client_read_only_metadata),
    server_metadata: row.server_metadata === null ? null : JSON.parse(row.server_metadata),
    has_password: row.has_password,
    otp_auth_enabled: row.otp_auth_enabled,
    passkey_auth_enabled: row.passkey_auth_enabled,
    auth_with_email: row.has_password || row.otp_auth_enabled,
    requires_totp_mfa: row.requires_totp_mfa,
    is_anonymous: row.is_anonymous,
    oauth_providers: row.oauth_providers.map((p) => ({ id: p.id, account_id: p.account_id, email: p.email })),
    selected_team_id: row.selected_team_id,
    risk_scores: { sign_up: { bot: row.risk_score_bot, free_trial_abuse: row.risk_score_free_trial_abuse } },
  };
}

export function createUserService(ctx: ServiceContext, searchPools: SearchPools): ServiceImpl<typeof UserService> {
  const { pool, outbox, log } = ctx;
  const setUpNewUser = createNewUserSetup(ctx);

  /** FindUserByAuthEmail for each lookup, in order, with one query. */
  async function findByAuthEmails(lookups: readonly { projectId: string; email: string }[]): Promise<FindUserByAuthEmailResponse[]> {
    const normalized = lookups.map((l) => ({ projectId: l.projectId, email: normalizeEmail(l.email) }));
    const found = await userStore.findByAuthEmails(pool, normalized);
    return normalized.map((_, i) => {
      const row = found.get(i);
      return create(FindUserByAuthEmailResponseSchema, row ? { user: toUserMessage(row), emailVerified: row.auth_email_verified } : { emailVerified: false });
    });
  }

  /**
   * Applies the primary e-mail part of an update (new address, removal, auth/verified flags) to the user's channels
   * and returns the channels it changed, for the events. The user row is locked by the caller.
   */
  async function updatePrimaryEmail(tx: PoolClient, user: UserRow, req: UpdateUserRequest): Promise<Array<{ channel: ContactChannelRow; deleted: boolean }>> {
    const changes: Array<{ channel: ContactChannelRow; deleted: boolean }> = [];
    const current = await contactChannelStore.getPrimary(tx, user.id);
    const removing = req.primaryEmail !== undefined && !req.primaryEmail.value;
    const newEmail = req.primaryEmail?.value ? normalizeEmail(req.primaryEmail.value) : undefined;
    const email = removing ? null : (newEmail ?? current?.value ?? null);
    if (!email && req.primaryEmailAuthEnabled) throw statusError(400, "primary_email_auth_enabled cannot be true without primary_email");
    if (!email && req.primaryEmailVerified) throw statusError(400, "primary_email_verified cannot be true without primary_email");
    const usedForAuth = email !== null && (req.primaryEmailAuthEnabled ?? current?.used_for_auth ?? false);
    if (email && usedForAuth && (email !== current?.value || !current.used_for_auth)) {
      await ensureAuthEmailFree(tx, user.project_id, email, user.id, "user");
    }

    if (removing) {
      if (current) {
        await contactChannelStore.delete(tx, current.id);
        changes.push({ channel: current, deleted: true });
      }
    } else if (email && email !== current?.value) {
      const existing = await contactChannelStore.findByUserValue(tx, user.id, "email", email);
      // When the new address already is a channel of the user, it becomes primary and the old primary stays as a
      // secondary channel; otherwise the primary channel itself takes the new address.
      if (current && existing) {
        const demoted = { ...current, is_primary: false };
        await contactChannelStore.update(tx, demoted);
        changes.push({ channel: demoted, deleted: false });
      }
      let next: ContactChannelRow;
      if (existing) {
        next = { ...existing, is_primary: true, used_for_auth: usedForAuth, is_verified: req.primaryEmailVerified ?? existing.is_verified };
        await contactChannelStore.update(tx, next);
      } else if (current) {
        next = { ...current, value: email, used_for_auth: usedForAuth, is_verified: req.primaryEmailVerified ?? false };
        await contactChannelStore.update(tx, next);
      } else {
        next = {
          id: newId(),
          project_id: user.project_id,
          user_id: user.id,
          type: "email",
          value: email,
          is_verified: req.primaryEmailVerified ?? false,
          is_primary: true,
          used_for_auth: usedForAuth,
        };
        await contactChannelStore.insert(tx, next);
      }
      changes.push({ channel: next, deleted: false });
    } else if (current && (req.primaryEmailVerified !== undefined || req.primaryEmailAuthEnabled !== undefined)) {
      const next = { ...current, used_for_auth: usedForAuth, is_verified: req.primaryEmailVerified ?? current.is_verified };
      await contactChannelStore.update(tx, next);
      changes.push({ channel: next, deleted: false });
    }
    return changes;
  }

  return {
    async createUser(req) {
      const projectId = req.projectId;
      const id = req.userId ? optionalUuid(req.userId, "user_id")! : newId();
      const email = req.primaryEmail ? normalizeEmail(req.primaryEmail) : null;
      if (!email && req.primaryEmailAuthEnabled) throw statusError(400, "primary_email_auth_enabled cannot be true without primary_email");
      if (!email && req.primaryEmailVerified) throw statusError(400, "primary_email_verified cannot be true without primary_email");
      const oauthProviders: StoredOAuthProvider[] = req.oauthProviders.map((p) => {
        if (!p.id) throw statusError(400, "oauth_providers[].id must not be empty.");
        return { id: p.id, account_id: p.accountId, email: p.email ? normalizeEmail(p.email) : null };
      });
      const fields: UserFields = {
        display_name: normalizeDisplayName(req.displayName),
        profile_image_url: req.profileImageUrl || null,
        client_metadata: metadata(req.clientMetadataJson, "client_metadata"),
        client_read_only_metadata: metadata(req.clientReadOnlyMetadataJson, "client_read_only_metadata"),
        server_metadata: metadata(req.serverMetadataJson, "server_metadata"),
        has_password: req.hasPassword,
        otp_auth_enabled: req.otpAuthEnabled,
        passkey_auth_enabled: req.passkeyAuthEnabled,
        requires_totp_mfa: req.requiresTotpMfa,
        is_anonymous: req.isAnonymous,
        selected_team_id: null,
        ...adminRestriction(req.restrictedByAdmin, req.restrictedByAdminReason, req.restrictedByAdminPrivateDetails),
        country_code: req.countryCode !== undefined ? countryCode(req.countryCode) : req.signUpIp ? (lookupIp(req.signUpIp)?.countryCode ?? null) : null,
        risk_score_bot: riskScore(req.riskScores?.signUpBot ?? 0, "risk_scores.sign_up.bot"),
        risk_score_free_trial_abuse: riskScore(req.riskScores?.signUpFreeTrialAbuse ?? 0, "risk_scores.sign_up.free_trial_abuse"),
      };
      const signUpMethod = req.signUpMethod || (req.isAnonymous ? "anonymous" : "server");
      try {
        const user = await withTransaction(pool, async (tx) => {
          if (email && req.primaryEmailAuthEnabled) await ensureAuthEmailFree(tx, projectId, email, id, "user");
          await userStore.insert(tx, { ...fields, id, project_id: projectId, oauth_providers: oauthProviders, sign_up_method: signUpMethod });
          let channel: ContactChannelRow | undefined;
          if (email) {
            channel = {
              id: newId(),
              project_id: projectId,
              user_id: id,
              type: "email",
              value: email,
              is_verified: req.primaryEmailVerified,
              is_primary: true,
              used_for_auth: req.primaryEmailAuthEnabled,
            };
            await contactChannelStore.insert(tx, channel);
          }
          await userStore.refreshSearchText(tx, id);
          const row = (await userStore.get(tx, projectId, id))!;
          await userStore.applyAggregateDeltas(tx, aggregateDeltas(null, aggregateKeyOf(row)));
          const message = toUserMessage(row);
          await outbox.enqueue(tx, IdentityEvents.userCreated, { user: message, signUpMethod }, { projectId });
          if (channel) await publishChannelChanged(tx, outbox, channel);
          return message;
        });
        // The personal team and default permissions exist before the sign-up answers (issue 13); teams-permissions
        // selects the team for the user, so the answer is read again.
        if (await setUpNewUser(user)) {
          const row = await userStore.get(pool, projectId, id);
          if (row) return { user: toUserMessage(row) };
        }
        return { user };
      } catch (err) {
        if (uniqueViolation(err) === "users_pkey") throw statusError(409, `A user with id ${id} already exists.`);
        if (isForeignKeyViolation(err)) throw knownError("PROJECT_NOT_FOUND", { project_id: projectId });
        return await translateChannelConflict(err, pool, projectId, email ?? undefined, "user");
      }
    },

    async getUser(req) {
      return { user: toUserMessage(await requireUser(pool, req.projectId, req.userId, { idFromBody: req.idFromBody })) };
    },

    async listUsers(req) {
      if (req.limit < 0) throw statusError(400, "limit must not be negative.");
      const none = { users: [], nextCursor: "" };
      if (req.orderBy !== "" && req.orderBy !== "signed_up_at" && req.orderBy !== "last_active_at") throw statusError(400, "order_by must be signed_up_at or last_active_at.");
      if (req.onlyAnonymous && !req.includeAnonymous) throw statusError(400, "only_anonymous=true requires include_anonymous=true");
      const filters = listFilters(req);
      const orderBy = req.orderBy === "last_active_at" ? "last_active_at" : "signed_up_at";
      if (req.cursor && !isUuid(req.cursor)) throw statusError(400, "cursor must be a user id.");
      const userIds = req.restrictToUserIds ? req.userIds.filter(isUuid) : undefined;
      if (userIds && userIds.length === 0) return none;
      const trimmed = req.query.trim();
      const exactId = isUuid(trimmed) ? trimmed.toLowerCase() : undefined;
      // search_text holds one value per line, so a query with a line break could only match across two values.
      const search = req.query && !req.query.includes("\n") ? req.query : undefined;
      if (req.query && search === undefined && exactId === undefined) return none;
      const rows = await userStore.list(
        pool,
        {
          projectId: req.projectId,
          limit: req.limit,
          // A cursor whose user is gone (deleted between two pages) ends the listing (an empty page), as in the reference.
          cursor: req.cursor || undefined,
          desc: req.desc,
          search,
          exactId,
          includeAnonymous: req.includeAnonymous,
          userIds,
          onlyAnonymous: req.onlyAnonymous,
          // include_anonymous also includes restricted users (as the reference does).
          excludeRestricted: req.includeRestricted || req.includeAnonymous || req.onlyRestricted ? undefined : { requireEmailVerification: req.requireEmailVerification },
          orderBy,
          filters,
        },
        searchPools,
      );
      const more = req.limit > 0 && rows.length > req.limit;
      return {
        users: (more ? rows.slice(0, req.limit) : rows).map(toUserMessage),
        nextCursor: more ? rows[req.limit]!.id : "",
      };
    },

    async updateUser(req) {
      const { projectId, userId } = req;
      let email: string | undefined;
      try {
        const user = await withTransaction(pool, async (tx) => {
          const before = await requireUser(tx, projectId, userId, { forUpdate: true });
          if (req.onlyIfNoSelectedTeam && before.selected_team_id !== null) return toUserMessage(before);
          if (req.isAnonymous === true && !before.is_anonymous) throw statusError(400, "is_anonymous can only be set to false.");
          email = req.primaryEmail?.value ? normalizeEmail(req.primaryEmail.value) : (before.primary_email ?? undefined);
          const fields: UserFields = {
            display_name: req.displayName ? normalizeDisplayName(req.displayName.value) : before.display_name,
            profile_image_url: req.profileImageUrl ? req.profileImageUrl.value || null : before.profile_image_url,
            client_metadata: req.clientMetadataJson !== undefined ? metadata(req.clientMetadataJson, "client_metadata") : before.client_metadata,
            client_read_only_metadata:
              req.clientReadOnlyMetadataJson !== undefined
                ? metadata(req.clientReadOnlyMetadataJson, "client_read_only_metadata")
                : before.client_read_only_metadata,
            server_metadata: req.serverMetadataJson !== undefined ? metadata(req.serverMetadataJson, "server_metadata") : before.server_metadata,
            has_password: req.hasPassword ?? before.has_password,
            otp_auth_enabled: req.otpAuthEnabled ?? before.otp_auth_enabled,
            passkey_auth_enabled: req.passkeyAuthEnabled ?? before.passkey_auth_enabled,
            requires_totp_mfa: req.requiresTotpMfa ?? before.requires_totp_mfa,
            is_anonymous: req.isAnonymous ?? before.is_anonymous,
            selected_team_id: req.selectedTeamId ? optionalUuid(req.selectedTeamId.value, "selected_team_id") : before.selected_team_id,
            ...adminRestriction(
              req.restrictedByAdmin ?? before.restricted_by_admin,
              req.restrictedByAdminReason ? (req.restrictedByAdminReason.value ?? null) : undefined,
              req.restrictedByAdminPrivateDetails ? (req.restrictedByAdminPrivateDetails.value ?? null) : undefined,
              { reason: before.restricted_by_admin_reason, details: before.restricted_by_admin_private_details },
            ),
            country_code: req.countryCode ? countryCode(req.countryCode.value) : before.country_code,
            risk_score_bot: req.riskScores ? riskScore(req.riskScores.signUpBot, "risk_scores.sign_up.bot") : before.risk_score_bot,
            risk_score_free_trial_abuse: req.riskScores
              ? riskScore(req.riskScores.signUpFreeTrialAbuse, "risk_scores.sign_up.free_trial_abuse")
              : before.risk_score_free_trial_abuse,
          };
          const channelChanges = await updatePrimaryEmail(tx, before, req);
          await userStore.update(tx, userId, fields);
          if (req.oauthProviders) {
            await userStore.setOAuthProviders(
              tx,
              userId,
              req.oauthProviders.links.map((p) => ({ id: p.id, account_id: p.accountId, email: p.email ?? null })),
            );
          }
          await userStore.refreshSearchText(tx, userId);
          const after = (await userStore.get(tx, projectId, userId))!;
          await userStore.applyAggregateDeltas(tx, aggregateDeltas(aggregateKeyOf(before), aggregateKeyOf(after)));
          const message = toUserMessage(after);
          await outbox.enqueue(tx, IdentityEvents.userUpdated, { user: message }, { projectId });
          for (const c of channelChanges) await publishChannelChanged(tx, outbox, c.channel, c.deleted);
          return message;
        });
        return { user };
      } catch (err) {
        return await translateChannelConflict(err, pool, projectId, email, "user");
      }
    },

    async deleteUser(req) {
      const { projectId, userId } = req;
      await withTransaction(pool, async (tx) => {
        const before = await requireUser(tx, projectId, userId, { forUpdate: true });
        await userStore.delete(tx, projectId, userId);
        await userStore.applyAggregateDeltas(tx, aggregateDeltas(aggregateKeyOf(before), null));
        await outbox.enqueue(tx, IdentityEvents.userDeleted, { projectId, userId }, { projectId });
      });
      return {};
    },

    async findUserByAuthEmail(req) {
      return (await findByAuthEmails([req]))[0]!;
    },

    async findUsersByAuthEmails(req) {
      return { results: await findByAuthEmails(req.lookups) };
    },

    async recordActivity(req) {
      // One entry per user: the latest time, and the IP seen then. Times in the future are clamped to now.
      const now = Date.now();
      const latest = new Map<string, { projectId: string; userId: string; at: Date; ip: string }>();
      for (const a of req.activities) {
        if (!isUuid(a.userId) || !a.projectId) continue;
        const at = Math.min(Number(a.atMillis) || now, now);
        const key = a.userId.toLowerCase();
        const seen = latest.get(key);
        if (!seen || seen.at.getTime() < at) latest.set(key, { projectId: a.projectId, userId: key, at: new Date(at), ip: a.ip || seen?.ip || "" });
      }
      const entries = [...latest.values()];
      if (entries.length === 0) return {};
      const record = () =>
        withTransaction(pool, async (tx) => {
          await userStore.addActiveUsers(tx, await userStore.recordActivity(tx, entries));
          // Users without a known country (e.g. created through the server API) get the country of their activity.
          const located = entries.filter((e) => e.ip && isPublicIp(e.ip));
          const missing = await userStore.withoutCountry(tx, located.map((e) => e.userId));
          const countries: Array<[string, string, boolean, number]> = [];
          for (const e of located) {
            if (!missing.has(e.userId)) continue;
            const country = lookupIp(e.ip)?.countryCode;
            if (!country) continue;
            const set = await userStore.setCountryIfUnknown(tx, e.userId, country);
            if (set) countries.push([set.project_id, country, set.is_anonymous, 1]);
          }
          if (countries.length > 0) {
            // Same row order as every other counter update, so concurrent transactions cannot deadlock.
            const key = (c: readonly [string, string, boolean, number]) => `${c[0]}\u0000${c[1]}\u0000${c[2]}`;
            countries.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
            const deltas: AggregateDeltas = { signUps: [], countries, loginMethods: [] };
            await userStore.applyAggregateDeltas(tx, deltas);
          }
        });
      try {
        await record();
      } catch (err) {
        // A user deleted while the batch was being written: the retry no longer sees them.
        if (!isForeignKeyViolation(err)) throw err;
        log.debug({ err: (err as Error).message }, "activity batch raced with a user deletion; retrying");
        await record();
      }
      return {};
    },

    async getUserMetrics(req) {
      const { projectId, includeAnonymous } = req;
      const days = lastUtcDays(new Date(), METRICS_DAYS);
      const [total, daily, countries, loginMethods, recentlyRegistered, recentlyActive] = await Promise.all([
        userStore.totalUsers(pool, projectId, includeAnonymous),
        userStore.dailyStats(pool, projectId, days[0]!, includeAnonymous),
        userStore.countries(pool, projectId, includeAnonymous),
        userStore.loginMethods(pool, projectId, includeAnonymous),
        userStore.recentlyRegistered(pool, projectId, includeAnonymous, METRICS_RECENT_USERS),
        userStore.recentlyActive(pool, projectId, includeAnonymous, METRICS_RECENT_USERS),
      ]);
      const byDay = new Map(daily.map((d) => [d.day, d]));
      const metrics = {
        total_users: total,
        daily_users: days.map((date) => ({ date, activity: byDay.get(date)?.sign_ups ?? 0 })),
        daily_active_users: days.map((date) => ({ date, activity: byDay.get(date)?.active_users ?? 0 })),
        users_by_country: Object.fromEntries(countries.map((c) => [c.country_code, c.users])),
        recently_registered: recentlyRegistered.map(metricsUser),
        recently_active: recentlyActive.map(metricsUser),
        login_methods: loginMethods.map((m) => ({ method: m.method, count: m.count })),
      };
      return { metricsJson: JSON.stringify(metrics) };
    },

    async getUserActivityReport(req) {
      const { projectId, includeAnonymous } = req;
      if (!Number.isInteger(req.days) || req.days < 1 || req.days > REPORT_MAX_DAYS) throw statusError(400, `days must be between 1 and ${REPORT_MAX_DAYS}.`);
      if (!(GRANULARITIES as readonly string[]).includes(req.granularity)) throw statusError(400, "granularity must be day, week or month.");
      const granularity = req.granularity as Granularity;
      const range = lastUtcDays(new Date(), req.days);
      const [from, to] = [range[0]!, range[range.length - 1]!];
      const first = bucketStart(from, granularity);
      const [daily, active, cohorts] = await Promise.all([
        userStore.dailyStats(pool, projectId, first, includeAnonymous),
        userStore.activeUsersPer(pool, projectId, granularity, first, includeAnonymous),
        userStore.weeklyCohorts(pool, projectId, bucketStart(from, "week"), includeAnonymous),
      ]);
      return { reportJson: JSON.stringify(activityReport({ from, to, granularity, daily, active, cohorts })) };
    },
  };
}
