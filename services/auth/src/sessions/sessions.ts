import { create } from "@bufbuild/protobuf";
import { SignInResultSchema, type SignInResult } from "@vestibule/proto/auth/v1/session";
import type { User } from "@vestibule/proto/identity/v1/user";
import { Batch, type BatchOutcome } from "@vestibule/shared/batch";
import type { Pool, PoolClient, Queryable } from "@vestibule/shared/db";
import { withTransaction } from "@vestibule/shared/db";
import { knownError, statusError } from "@vestibule/shared/errors";
import type { Outbox } from "@vestibule/shared/events";
import { isUuid, newId } from "@vestibule/shared/ids";
import type { Logger } from "@vestibule/shared/log";
import { hashSecret, randomCode } from "@vestibule/shared/secrets";
import { tokenUser, type AccessTokens } from "../signing/access-tokens.ts";
import type { TokenUser } from "../signing/domain/claims.ts";
import type { AuthSettings } from "../domain/settings.ts";
import { AuthEvents } from "../events.ts";
import type { IpLocator } from "./ip-info.ts";
import { isPeerError, type IdentityClients } from "../peers.ts";
import type { ProjectSettingsCache } from "../project-settings.ts";
import { RecentClaims } from "./recent-claims.ts";
import type { SigningKey } from "../signing/signing-keys.ts";
import { claimsStore, snapshotState } from "./store/claims-store.ts";
import { sessionStore, TOUCH_INTERVAL_SECONDS, type SessionRow, type SessionTouchRow } from "./store/session-store.ts";

/** Default session lifetime (365 days) and the largest a server may ask for (367 days). */
export const DEFAULT_SESSION_LIFETIME_MS = 31_536_000_000;
export const MAX_SESSION_LIFETIME_MS = 31_708_800_000;
/**
 * A claims snapshot older than this is re-confirmed with identity at the next refresh: the bound on staleness (and on
 * a deleted user's refreshes) should identity's events be held up. Events normally update it within milliseconds.
 */
export const SNAPSHOT_RECHECK_MS = 10 * 60_000;

export interface OpenedSession {
  readonly sessionId: string;
  readonly refreshToken: string;
}

export interface RefreshInput {
  readonly projectId: string;
  readonly refreshToken: string;
  /** End-user IP for last_used_at ("" when unknown). */
  readonly ip: string;
}

/** The outcome of one refresh of a batch: its result, or what `refresh` would have thrown. */
export type RefreshOutcome = BatchOutcome<RefreshResult>;

export interface RefreshResult {
  readonly accessToken: string;
  /** Only when the project rotates refresh tokens. */
  readonly refreshToken?: string;
  readonly sessionId: string;
  readonly userId: string;
}

/**
 * Sessions and their refresh tokens: opening, refreshing (with optional rotation and reuse detection), listing,
 * revoking. Refresh tokens are 45 random characters, stored only as SHA-256. Every revocation emits
 * auth.session.revoked.v1 in the same transaction.
 */
/** A session to open: its user, lifetime (default DEFAULT_SESSION_LIFETIME_MS) and, for a sign-in, where from. */
export interface NewSessionInput {
  readonly projectId: string;
  readonly userId: string;
  readonly expiresInMillis?: number;
  readonly isImpersonation?: boolean;
  readonly ip?: string;
  /** A sign-in counts as a use (last_used_at now, from `ip`); a server-created session does not. */
  readonly isSignIn: boolean;
}

/**
 * A session that had to be revoked (its refresh token was reused) but could not be: the refresh itself is refused
 * anyway, and the session's tokens stay valid until a later attempt or its expiry, so this is logged as an error for
 * the operator instead of being dropped.
 */
function revokeFailed(log: Logger, session: { project_id: string; id: string; user_id: string }, err: unknown): void {
  log.error({ err, project_id: session.project_id, session_id: session.id, user_id: session.user_id }, "could not revoke the session after refresh-token reuse");
}

export class Sessions {
  /** Claims snapshots stored lately by sign-ins: a user signing in again does not rewrite an unchanged one. */
  private readonly recentClaims = new RecentClaims();

  constructor(
    private readonly deps: {
      pool: Pool;
      outbox: Outbox;
      log: Logger;
      tokens: AccessTokens;
      settings: ProjectSettingsCache;
      identity: Pick<IdentityClients, "users">;
      locateIp: IpLocator;
    },
  ) {}

  /** Inserts a session (inside the caller's transaction when given one). The refresh token is returned only here. */
  async open(db: Queryable, input: NewSessionInput): Promise<OpenedSession> {
    return (await this.openMany(db, [input]))[0]!;
  }

  /** Inserts several sessions with one statement (a batch of sign-ins); results in the order of `inputs`. */
  async openMany(db: Queryable, inputs: readonly NewSessionInput[]): Promise<OpenedSession[]> {
    const opened = inputs.map(() => ({ sessionId: newId(), refreshToken: randomCode(45) }));
    await sessionStore.insert(
      db,
      inputs.map((input, i) => ({
        id: opened[i]!.sessionId,
        projectId: input.projectId,
        userId: input.userId,
        refreshTokenHash: hashSecret(opened[i]!.refreshToken),
        isImpersonation: input.isImpersonation ?? false,
        expiresAt: new Date(Date.now() + (input.expiresInMillis || DEFAULT_SESSION_LIFETIME_MS)),
        used: input.isSignIn,
        usedFromIp: input.ip,
        ipInfo: input.ip ? this.deps.locateIp(input.ip) : null,
      })),
    );
    return opened;
  }

  /** The sign-in result for an opened session: a fresh access token plus the refresh token. */
  async result(settings: AuthSettings, user: User, session: OpenedSession, isNewUser: boolean): Promise<SignInResult> {
    const claims = tokenUser(user);
    const version = Number(user.version);
    if (!this.recentClaims.isCurrent(user.projectId, claims, version) && (await this.remember(user))) {
      this.recentClaims.stored(user.projectId, claims, version);
    }
    return create(SignInResultSchema, {
      accessToken: await this.deps.tokens.mint(settings, session.sessionId, claims),
      refreshToken: session.refreshToken,
      userId: user.id,
      isNewUser,
      sessionId: session.sessionId,
    });
  }

  /** Keeps the claims snapshot of a user identity just returned (never overwrites a newer version); false if it failed. */
  async remember(user: User): Promise<boolean> {
    try {
      await claimsStore.upsert(this.deps.pool, { ...tokenUser(user), projectId: user.projectId, version: Number(user.version) });
      return true;
    } catch (err) {
      // Only an optimisation: the next refresh asks identity.
      this.deps.log.warn({ err: (err as Error).message, user_id: user.id }, "could not store the user's claims snapshot");
      return false;
    }
  }

  /** Opens a session for an existing user (sign-in) and returns the tokens. */
  async signIn(settings: AuthSettings, user: User, opts: { ip?: string; isNewUser?: boolean } = {}): Promise<SignInResult> {
    const session = await this.open(this.deps.pool, { projectId: settings.projectId, userId: user.id, ip: opts.ip, isSignIn: true });
    return this.result(settings, user, session, opts.isNewUser ?? false);
  }

  /**
   * A new access token for a refresh token. Valid when the session exists, belongs to the project, has not expired
   * and its user still exists; otherwise REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED. See `refreshMany`, which this is a batch
   * of one of.
   */
  async refresh(projectId: string, refreshToken: string, ip: string): Promise<RefreshResult> {
    const [outcome] = await this.refreshMany([{ projectId, refreshToken, ip }]);
    if ("error" in outcome!) throw outcome.error;
    return outcome!.ok;
  }

  /**
   * Many refreshes at once (gateways batch concurrent ones), each with the outcome `refresh` would have had; one bad
   * token fails only its own item. Per batch, not per item: one query reads every session with its user's claims
   * snapshot (`= ANY`), one more looks up the tokens that were not found among the rotated-away ones (reuse
   * detection), one statement rotates every rotating session, one writes `last_used_at` (still at most once a minute
   * per session). Identity is asked only for users whose snapshot is missing or older than SNAPSHOT_RECHECK_MS (once
   * per user and batch). Tokens are signed synchronously with the cached key.
   *
   * With `auth.refreshTokenRotation` each token is replaced by a new one; presenting a replaced token again revokes
   * the whole session, and so does presenting one token twice at once (also twice in one batch: the first wins and the
   * session is revoked, as with two concurrent single refreshes).
   */
  async refreshMany(inputs: readonly RefreshInput[]): Promise<RefreshOutcome[]> {
    const batch = new Batch<RefreshInput, RefreshResult>(inputs);
    const fail = (i: number, error: unknown) => batch.fail(i, error);
    const pending = () => batch.pending();
    const notFound = () => knownError("REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED");
    const { pool, log } = this.deps;

    // Project settings (cached: normally no I/O). A project that fails fails its items with that error.
    const settings = new Map<string, AuthSettings | { error: unknown }>();
    await Promise.all(
      [...new Set(inputs.map((x) => x.projectId))].map(async (projectId) => {
        try {
          settings.set(projectId, await this.deps.settings.get(projectId));
        } catch (error) {
          settings.set(projectId, { error });
        }
      }),
    );
    const settingsOf = (i: number) => settings.get(inputs[i]!.projectId) as AuthSettings;
    const hashes = inputs.map((x) => (x.refreshToken ? hashSecret(x.refreshToken) : ""));
    inputs.forEach((x, i) => {
      const s = settings.get(x.projectId)!;
      if ("error" in s) fail(i, s.error);
      else if (!x.refreshToken) fail(i, notFound());
    });

    // Sessions with their claims snapshots: one query for the whole batch.
    const rows = await batch.shared(async () => {
      const found = await sessionStore.byTokenHashesWithClaims(pool, [...new Set(pending().map((i) => hashes[i]!))]);
      return new Map(found.map((r) => [r.refresh_token_hash, r]));
    });
    if (!rows) return batch.outcomes();

    // Unknown tokens: a rotated-away one presented again revokes its session (reuse detection).
    const missing = pending().filter((i) => !rows.has(hashes[i]!));
    if (missing.length > 0) {
      const reused = await sessionStore.sessionsOfRotatedTokens(pool, [...new Set(missing.map((i) => hashes[i]!))]).catch((err: unknown) => {
        log.warn({ err: (err as Error).message }, "could not check unknown refresh tokens against rotated ones");
        return new Map<string, SessionRow>();
      });
      const revoke = new Map<string, SessionRow>();
      for (const i of missing) {
        const r = reused.get(hashes[i]!);
        if (r && r.project_id === inputs[i]!.projectId) revoke.set(r.id, r);
        fail(i, notFound());
      }
      await Promise.all(
        [...revoke.values()].map((r) => {
          log.warn({ project_id: r.project_id, session_id: r.id, user_id: r.user_id }, "rotated refresh token reused; session revoked");
          return this.revoke(r.project_id, r.id).catch((err: unknown) => revokeFailed(log, r, err));
        }),
      );
      // The current token of a session revoked just now (also in this batch) is refused at once.
      for (const i of pending()) if (revoke.has(rows.get(hashes[i]!)!.id)) fail(i, notFound());
    }

    const now = Date.now();
    for (const i of pending()) {
      const row = rows.get(hashes[i]!)!;
      if (row.project_id !== inputs[i]!.projectId || row.expires_at.getTime() <= now) fail(i, notFound());
    }

    // Claims: from the snapshot, or from identity (once per user and batch).
    const users = new Map<string, Promise<TokenUser | undefined>>();
    const userAt = new Map<number, TokenUser>();
    await batch.each(pending(), async (i) => {
      const row = rows.get(hashes[i]!)!;
      const key = `${row.project_id}|${row.user_id}`;
      let p = users.get(key);
      if (!p) {
        p = this.claimsFor(row.project_id, row.user_id, snapshotState(row.user_id, row));
        users.set(key, p);
      }
      const user = await p;
      if (!user) throw notFound();
      userAt.set(i, user);
    });

    // Rotation: one compare-and-set statement for every rotating session of the batch.
    const rotated = new Map<number, string>();
    const rotating = pending().filter((i) => settingsOf(i).refreshTokenRotation);
    if (rotating.length > 0) {
      // A token twice in the batch: only its first item may rotate it.
      const first = new Map<string, number>();
      for (const i of rotating) if (!first.has(hashes[i]!)) first.set(hashes[i]!, i);
      for (const i of first.values()) rotated.set(i, randomCode(45));
      const rotations = [...first.values()].map((i) => ({ sessionId: rows.get(hashes[i]!)!.id, oldHash: hashes[i]!, newHash: hashSecret(rotated.get(i)!) }));
      const won =
        (await batch.shared(
          () =>
            sessionStore.rotateMany(pool, rotations).catch(async (err: unknown) => {
              // Deadlock with a statement that locks several sessions in another order (e.g. revoking all sessions of
              // a user): one compare-and-set per session, which locks a single row and cannot deadlock.
              if ((err as { code?: string }).code !== "40P01") throw err;
              const each = await Promise.all(rotations.map((r) => sessionStore.rotateMany(pool, [r])));
              return new Set(each.flatMap((w) => [...w]));
            }),
          rotating,
        )) ?? new Set<string>();
      const revoke = new Map<string, SessionRow>();
      for (const i of rotating) {
        if (!batch.isPending(i)) continue;
        const row = rows.get(hashes[i]!)!;
        if (first.get(hashes[i]!) === i && won.has(row.id)) continue;
        // Someone refreshed with this very token a moment ago (or it is in this batch twice): the token exists twice.
        revoke.set(row.id, row);
        fail(i, notFound());
      }
      await Promise.all(
        [...revoke.values()].map((r) => {
          log.warn({ project_id: r.project_id, session_id: r.id, user_id: r.user_id }, "refresh token used concurrently under rotation; session revoked");
          return this.revoke(r.project_id, r.id).catch((err: unknown) => revokeFailed(log, r, err));
        }),
      );
    }

    // Last use: at most one write per session and minute, one statement for the batch.
    const touches = pending().filter((i) => {
      const last = rows.get(hashes[i]!)!.last_used_at;
      return !last || now - last.getTime() >= TOUCH_INTERVAL_SECONDS * 1000;
    });
    if (touches.length > 0) {
      try {
        await this.touch(touches.map((i) => ({ projectId: inputs[i]!.projectId, sessionId: rows.get(hashes[i]!)!.id, at: new Date(now), ip: inputs[i]!.ip })));
      } catch (err) {
        // Bookkeeping only: the refreshes stand (a rotated token must reach its client), the next use writes it.
        log.warn({ err: (err as Error).message, sessions: touches.length }, "could not record the last use of refreshed sessions");
      }
    }

    // Access tokens: the signing keys are cached; signing is synchronous.
    const keys = new Map<string, Promise<SigningKey>>();
    const nowSeconds = Math.floor(Date.now() / 1000);
    await batch.each(pending(), async (i) => {
      const row = rows.get(hashes[i]!)!;
      const user = userAt.get(i)!;
      const s = settingsOf(i);
      const audience = `${s.projectId}|${user.isAnonymous}`;
      let key = keys.get(audience);
      if (!key) {
        key = this.deps.tokens.signingKey(s, user);
        keys.set(audience, key);
      }
      const accessToken = this.deps.tokens.sign(await key, s, row.id, user, nowSeconds);
      batch.succeed(i, { accessToken, refreshToken: rotated.get(i), sessionId: row.id, userId: row.user_id });
    });
    return batch.outcomes();
  }

  /**
   * The token claims of a session's user: from the local snapshot when it is recent, else from identity (which also
   * tells whether the user still exists). Undefined for deleted users.
   */
  private async claimsFor(projectId: string, userId: string, snapshot: ReturnType<typeof snapshotState>): Promise<TokenUser | undefined> {
    if (snapshot.kind === "deleted") return undefined;
    if (snapshot.kind === "present" && Date.now() - snapshot.checkedAt.getTime() < SNAPSHOT_RECHECK_MS) return snapshot.user;
    const user = await this.getUser(projectId, userId);
    if (!user) return undefined;
    await this.remember(user);
    return tokenUser(user);
  }

  /** Records uses (batched by gateways): at most one write per session and minute. */
  async touch(touches: readonly { projectId: string; sessionId: string; at: Date; ip: string }[]): Promise<number> {
    const rows: SessionTouchRow[] = touches
      .filter((t) => isUuid(t.sessionId) && t.at.getTime() > 0)
      .map((t) => ({
        projectId: t.projectId,
        sessionId: t.sessionId,
        // Never in the future (a gateway's clock may be ahead).
        at: new Date(Math.min(t.at.getTime(), Date.now())),
        ip: t.ip || null,
        ipInfo: t.ip ? this.deps.locateIp(t.ip) : null,
      }));
    return sessionStore.touch(this.deps.pool, rows);
  }

  list(projectId: string, userId: string, includeImpersonation: boolean): Promise<SessionRow[]> {
    if (!isUuid(userId)) return Promise.resolve([]);
    return sessionStore.listForUser(this.deps.pool, projectId, userId, includeImpersonation);
  }

  /** Revokes one session (of `userId`, when given); 404 "Session not found." otherwise. */
  async revoke(projectId: string, sessionId: string, userId?: string): Promise<void> {
    const notFound = () => statusError(404, "Session not found.");
    if (!isUuid(sessionId) || (userId && !isUuid(userId))) throw notFound();
    await withTransaction(this.deps.pool, async (tx) => {
      const row = await sessionStore.delete(tx, projectId, sessionId, userId || undefined);
      if (!row) throw notFound();
      await this.deps.outbox.enqueue(tx, AuthEvents.sessionRevoked, { projectId, userId: row.user_id, sessionId: row.id }, { projectId });
    });
  }

  /** Revokes all sessions of a user except `exceptSessionId`, inside the caller's transaction. */
  async revokeAllIn(tx: PoolClient, projectId: string, userId: string, exceptSessionId?: string): Promise<number> {
    if (!isUuid(userId)) return 0;
    const except = exceptSessionId && isUuid(exceptSessionId) ? exceptSessionId : undefined;
    const n = await sessionStore.deleteForUser(tx, projectId, userId, except);
    if (n > 0) await this.deps.outbox.enqueue(tx, AuthEvents.sessionRevoked, { projectId, userId, sessionId: "" }, { projectId });
    return n;
  }

  revokeAll(projectId: string, userId: string, exceptSessionId?: string): Promise<number> {
    return withTransaction(this.deps.pool, (tx) => this.revokeAllIn(tx, projectId, userId, exceptSessionId));
  }

  /** The session id of a refresh token of this project, if it is one. */
  async sessionIdOfToken(projectId: string, refreshToken: string): Promise<string | undefined> {
    if (!refreshToken) return undefined;
    const row = await sessionStore.byTokenHash(this.deps.pool, hashSecret(refreshToken));
    return row && row.project_id === projectId ? row.id : undefined;
  }

  /** The user from identity, or undefined when it no longer exists. */
  async getUser(projectId: string, userId: string): Promise<User | undefined> {
    try {
      const { user } = await this.deps.identity.users.getUser({ projectId, userId });
      return user;
    } catch (err) {
      if (isPeerError(err, "USER_NOT_FOUND") || isPeerError(err, "USER_ID_DOES_NOT_EXIST")) return undefined;
      throw err;
    }
  }
}
