import type { TokenUser } from "../signing/domain/claims.ts";

/** How long a claims snapshot this replica just stored is taken as current (the refresh re-check is 10 minutes). */
export const RECENT_CLAIMS_MS = 60_000;
const MAX_ENTRIES = 50_000;

/**
 * The claims snapshots this replica stored lately, so that a user signing in again and again does not rewrite an
 * identical `user_claims` row (and its `checked_at`) on every sign-in: one write per user and minute at most while
 * nothing changed. Skipping is always safe: the snapshot is only an optimisation of refreshes (a missing, older or
 * expired one makes the next refresh ask identity), its upsert never overwrites a newer version or a tombstone, and
 * any change of the user's token facts or version makes the next sign-in write again.
 */
export class RecentClaims {
  private readonly entries = new Map<string, { fingerprint: string; at: number }>();

  constructor(private readonly ttlMs = RECENT_CLAIMS_MS) {}

  /** True when exactly these claims (same version) were stored by this replica less than `ttlMs` ago. */
  isCurrent(projectId: string, user: TokenUser, version: number, now = Date.now()): boolean {
    const hit = this.entries.get(`${projectId}|${user.id}`);
    return hit !== undefined && now - hit.at < this.ttlMs && hit.fingerprint === fingerprint(user, version);
  }

  /** Notes claims just stored. */
  stored(projectId: string, user: TokenUser, version: number, now = Date.now()): void {
    const key = `${projectId}|${user.id}`;
    this.entries.delete(key);
    if (this.entries.size >= MAX_ENTRIES) {
      // Oldest first (insertion order): drop the older half.
      let drop = this.entries.size / 2;
      for (const k of this.entries.keys()) {
        if (drop-- <= 0) break;
        this.entries.delete(k);
      }
    }
    this.entries.set(key, { fingerprint: fingerprint(user, version), at: now });
  }
}

function fingerprint(u: TokenUser, version: number): string {
  return JSON.stringify([version, u.displayName, u.primaryEmail, u.primaryEmailVerified, u.selectedTeamId, u.isAnonymous, u.requiresTotpMfa, u.signedUpAtMillis, u.restrictedByAdmin ?? false]);
}
