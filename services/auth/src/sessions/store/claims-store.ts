import type { Queryable } from "@vestibule/shared/db";
import type { TokenUser } from "../../signing/domain/claims.ts";

export interface ClaimsSnapshot extends TokenUser {
  readonly projectId: string;
  readonly version: number;
}

/** The user_claims columns as read next to a session (all null when there is no snapshot). */
export interface ClaimsColumns {
  readonly c_version: number | null;
  readonly c_deleted: boolean | null;
  readonly c_display_name: string | null;
  readonly c_primary_email: string | null;
  readonly c_primary_email_verified: boolean | null;
  readonly c_selected_team_id: string | null;
  readonly c_is_anonymous: boolean | null;
  readonly c_requires_totp_mfa: boolean | null;
  readonly c_signed_up_at_millis: number | null;
  readonly c_restricted_by_admin: boolean | null;
  readonly c_checked_at: Date | null;
}

export const CLAIMS_SELECT = `c.version AS c_version, c.deleted AS c_deleted, c.display_name AS c_display_name,
  c.primary_email AS c_primary_email, c.primary_email_verified AS c_primary_email_verified,
  c.selected_team_id AS c_selected_team_id, c.is_anonymous AS c_is_anonymous, c.requires_totp_mfa AS c_requires_totp_mfa,
  c.signed_up_at_millis AS c_signed_up_at_millis, c.restricted_by_admin AS c_restricted_by_admin, c.checked_at AS c_checked_at`;

export type SnapshotState = { kind: "missing" } | { kind: "deleted" } | { kind: "present"; user: TokenUser; checkedAt: Date };

export function snapshotState(userId: string, c: ClaimsColumns): SnapshotState {
  if (c.c_version === null) return { kind: "missing" };
  if (c.c_deleted) return { kind: "deleted" };
  return {
    kind: "present",
    checkedAt: c.c_checked_at!,
    user: {
      id: userId,
      displayName: c.c_display_name,
      primaryEmail: c.c_primary_email,
      primaryEmailVerified: c.c_primary_email_verified ?? false,
      selectedTeamId: c.c_selected_team_id,
      isAnonymous: c.c_is_anonymous ?? false,
      requiresTotpMfa: c.c_requires_totp_mfa ?? false,
      signedUpAtMillis: c.c_signed_up_at_millis ?? 0,
      restrictedByAdmin: c.c_restricted_by_admin ?? false,
    },
  };
}

/** The only SQL about user claim snapshots. */
export const claimsStore = {
  /**
   * Stores a user's claims unless a newer version (or a tombstone) is already there; an equal version refreshes
   * `checked_at` (identity just confirmed it).
   */
  async upsert(db: Queryable, s: ClaimsSnapshot): Promise<void> {
    await db.query(
      `INSERT INTO user_claims AS c (project_id, user_id, version, display_name, primary_email, primary_email_verified, selected_team_id,
         is_anonymous, requires_totp_mfa, signed_up_at_millis, restricted_by_admin, checked_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, now())
       ON CONFLICT (project_id, user_id) DO UPDATE SET
         version = EXCLUDED.version, display_name = EXCLUDED.display_name, primary_email = EXCLUDED.primary_email,
         primary_email_verified = EXCLUDED.primary_email_verified, selected_team_id = EXCLUDED.selected_team_id,
         is_anonymous = EXCLUDED.is_anonymous, requires_totp_mfa = EXCLUDED.requires_totp_mfa,
         signed_up_at_millis = EXCLUDED.signed_up_at_millis, restricted_by_admin = EXCLUDED.restricted_by_admin, checked_at = now()
       WHERE NOT c.deleted AND c.version <= EXCLUDED.version`,
      [s.projectId, s.id, s.version, s.displayName, s.primaryEmail, s.primaryEmailVerified, s.selectedTeamId, s.isAnonymous, s.requiresTotpMfa, s.signedUpAtMillis, s.restrictedByAdmin ?? false],
    );
  },

  /** Makes the next refresh ask identity (after a change made here whose event has not arrived yet). */
  async expire(db: Queryable, projectId: string, userId: string): Promise<void> {
    await db.query(`UPDATE user_claims SET checked_at = 'epoch' WHERE project_id = $1 AND user_id = $2`, [projectId, userId]);
  },

  /** Marks the user deleted (a tombstone that later events cannot overwrite). */
  async tombstone(db: Queryable, projectId: string, userId: string): Promise<void> {
    await db.query(
      `INSERT INTO user_claims (project_id, user_id, version, deleted) VALUES ($1, $2, 0, true)
       ON CONFLICT (project_id, user_id) DO UPDATE SET deleted = true, checked_at = now(),
         display_name = NULL, primary_email = NULL, selected_team_id = NULL`,
      [projectId, userId],
    );
  },

  async deleteOldTombstones(db: Queryable, olderThanDays: number): Promise<number> {
    const { rowCount } = await db.query(`DELETE FROM user_claims WHERE deleted AND checked_at < now() - make_interval(days => $1)`, [olderThanDays]);
    return rowCount ?? 0;
  },
};
