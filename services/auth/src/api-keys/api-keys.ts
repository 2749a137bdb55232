import { ApiKeyDeletedSchema, ApiKeyUpdatedSchema } from "@vestibule/proto/auth/v1/events";
import type { Pool, PoolClient } from "@vestibule/shared/db";
import { withTransaction } from "@vestibule/shared/db";
import { knownError } from "@vestibule/shared/errors";
import { decodeEnvelope, decodePayload, defineEvent, type EventBus, type Outbox, type Subscription } from "@vestibule/shared/events";
import { isUuid, newId } from "@vestibule/shared/ids";
import type { Logger } from "@vestibule/shared/log";
import { hashSecret, randomCode } from "@vestibule/shared/secrets";
import { leakedApiKeyRevokedEmail } from "./domain/api-key-emails.ts";
import { apiKeyProblem, formatApiKey, parseApiKey, type ApiKeyKind } from "./domain/api-keys.ts";
import type { Mailer } from "../mailer.ts";
import { isPeerError, type IdentityClients } from "../peers.ts";
import type { ProjectSettingsCache } from "../project-settings.ts";
import { apiKeyStore, type ApiKeyRow } from "./store/api-key-store.ts";
import { deletedTeamStore } from "./store/deleted-team-store.ts";

/** Events about user and team API keys (stream of the `auth` producer). */
export const ApiKeyEvents = {
  /** A key changed (description, expiry, revocation): every replica's check cache drops it. */
  updated: defineEvent("auth.api_key.updated.v1", ApiKeyUpdatedSchema),
  /** A key was deleted with its owner. */
  deleted: defineEvent("auth.api_key.deleted.v1", ApiKeyDeletedSchema),
} as const;

/**
 * Who is told when a secret scanner revokes a team's key: the team members allowed to manage its API keys, with
 * their e-mail addresses. Teams live in the teams-permissions service: `teamsServiceDirectory` (team-directory.ts)
 * asks it, and decides who they are.
 */
export interface TeamDirectory {
  apiKeyManagers(projectId: string, teamId: string): Promise<readonly { userId: string; email: string }[]>;
}

interface CacheEntry {
  readonly row: ApiKeyRow | undefined;
  readonly until: number;
  readonly keyId: string;
}

/**
 * Answers of `byHash` lookups kept in memory, keyed by the key's SHA-256 (the key itself is not kept). A found key
 * stays until it changes: auth.api_key.* events (broadcast to every replica) and local changes drop it at once;
 * `ttlMs` is only the safety net for missed events. An unknown key is remembered for `negativeTtlMs`. Expiry and
 * revocation are evaluated against the cached row at each check, so an expired key fails on time without an event.
 * A lookup that raced with an invalidation of its key is not stored. Bounded: past `maxEntries` it starts over.
 */
export class ApiKeyCheckCache {
  private readonly entries = new Map<string, CacheEntry>();
  private readonly hashesById = new Map<string, Set<string>>();
  private readonly generations = new Map<string, number>();
  private readonly loading = new Map<string, Promise<ApiKeyRow | undefined>>();

  constructor(
    private readonly load: (keyHash: string) => Promise<ApiKeyRow | undefined>,
    private readonly ttlMs = 5 * 60_000,
    private readonly negativeTtlMs = 5_000,
    private readonly maxEntries = 100_000,
  ) {}

  async get(keyHash: string, keyId: string): Promise<ApiKeyRow | undefined> {
    const hit = this.entries.get(keyHash);
    if (hit && hit.until > Date.now()) return hit.row;
    let p = this.loading.get(keyHash);
    if (!p) {
      const generation = this.generations.get(keyId) ?? 0;
      p = this.load(keyHash).then((row) => {
        if ((this.generations.get(keyId) ?? 0) === generation) this.store(keyHash, keyId, row);
        return row;
      });
      this.loading.set(keyHash, p);
      // The load's error reaches every caller through the promise returned below; this catch only keeps the clean-up
      // chain from being reported as an unhandled rejection.
      p.finally(() => this.loading.delete(keyHash)).catch(() => {});
    }
    return p;
  }

  private store(keyHash: string, keyId: string, row: ApiKeyRow | undefined): void {
    if (this.entries.size >= this.maxEntries) this.clear();
    this.entries.set(keyHash, { row, keyId, until: Date.now() + (row ? this.ttlMs : this.negativeTtlMs) });
    let hashes = this.hashesById.get(keyId);
    if (!hashes) this.hashesById.set(keyId, (hashes = new Set()));
    hashes.add(keyHash);
  }

  invalidate(keyId: string): void {
    this.generations.set(keyId, (this.generations.get(keyId) ?? 0) + 1);
    for (const h of this.hashesById.get(keyId) ?? []) {
      this.entries.delete(h);
      this.loading.delete(h);
    }
    this.hashesById.delete(keyId);
  }

  clear(): void {
    for (const id of this.hashesById.keys()) this.generations.set(id, (this.generations.get(id) ?? 0) + 1);
    this.entries.clear();
    this.hashesById.clear();
    this.loading.clear();
  }

  get size(): number {
    return this.entries.size;
  }

  /** Keeps the cache in step with auth.api_key.* events on every replica. */
  subscribe(bus: EventBus): Promise<Subscription> {
    return bus.broadcast({
      subject: "auth.api_key.>",
      handler: (msg) => {
        const envelope = decodeEnvelope(msg.data);
        const id =
          envelope.type === ApiKeyEvents.updated.type
            ? decodePayload(ApiKeyEvents.updated, envelope).apiKeyId
            : envelope.type === ApiKeyEvents.deleted.type
              ? decodePayload(ApiKeyEvents.deleted, envelope).apiKeyId
              : undefined;
        if (id) this.invalidate(id);
      },
      onReset: () => this.clear(),
    });
  }
}

export interface CreatedApiKey {
  readonly row: ApiKeyRow;
  /** The full key string; returned once, never stored. */
  readonly value: string;
}

/**
 * User and team API keys: creation (the string is returned once and stored only as SHA-256), listing, updates and
 * revocation (each change publishes auth.api_key.updated.v1 in its transaction), checks (one indexed lookup,
 * cached), and the secret-scanner revocation that e-mails the owners.
 */
export class ApiKeys {
  readonly cache: ApiKeyCheckCache;

  constructor(
    private readonly deps: {
      pool: Pool;
      outbox: Outbox;
      log: Logger;
      mailer: Mailer;
      identity: Pick<IdentityClients, "users">;
      settings: ProjectSettingsCache;
      teams: TeamDirectory;
    },
  ) {
    this.cache = new ApiKeyCheckCache((keyHash) => apiKeyStore.byHash(deps.pool, keyHash));
  }

  /**
   * A new key. Team keys are created under the team's lock and never for a team the teams-permissions service has
   * deleted (TEAM_NOT_FOUND): a creation racing with the deletion either commits first, and the deletion then removes
   * the key, or sees the deletion.
   */
  async create(input: {
    projectId: string;
    kind: ApiKeyKind;
    ownerId: string;
    description: string;
    expiresAt: Date | null;
    isPublic: boolean;
  }): Promise<CreatedApiKey> {
    const id = newId();
    const value = formatApiKey({ id, kind: input.kind, isPublic: input.isPublic, secret: randomCode(45) });
    const key = {
      id,
      projectId: input.projectId,
      type: input.kind,
      ownerId: input.ownerId,
      description: input.description,
      isPublic: input.isPublic,
      keyHash: hashSecret(value),
      lastFour: value.slice(-4),
      expiresAt: input.expiresAt,
    };
    if (input.kind === "user") return { row: await apiKeyStore.insert(this.deps.pool, key), value };
    const row = await withTransaction(this.deps.pool, async (tx) => {
      await deletedTeamStore.lock(tx, input.projectId, input.ownerId);
      if (await deletedTeamStore.isDeleted(tx, input.projectId, input.ownerId)) throw knownError("TEAM_NOT_FOUND", { team_id: input.ownerId });
      return apiKeyStore.insert(tx, key);
    });
    return { row, value };
  }

  list(projectId: string, kind: ApiKeyKind, ownerId: string): Promise<ApiKeyRow[]> {
    if (!isUuid(ownerId)) return Promise.resolve([]);
    return apiKeyStore.list(this.deps.pool, projectId, kind, ownerId);
  }

  async get(projectId: string, kind: ApiKeyKind, id: string, ownerId?: string): Promise<ApiKeyRow> {
    if (!isUuid(id) || (ownerId && !isUuid(ownerId))) throw knownError("API_KEY_NOT_FOUND");
    const row = await apiKeyStore.get(this.deps.pool, projectId, kind, id, ownerId || undefined);
    if (!row) throw knownError("API_KEY_NOT_FOUND");
    return row;
  }

  async update(
    projectId: string,
    kind: ApiKeyKind,
    id: string,
    ownerId: string | undefined,
    change: { description?: string; expiresAt?: Date | null; revoke: boolean },
  ): Promise<ApiKeyRow> {
    if (!isUuid(id) || (ownerId && !isUuid(ownerId))) throw knownError("API_KEY_NOT_FOUND");
    const row = await withTransaction(this.deps.pool, async (tx) => {
      const updated = await apiKeyStore.update(tx, projectId, kind, id, ownerId || undefined, change);
      if (!updated) throw knownError("API_KEY_NOT_FOUND");
      await this.deps.outbox.enqueue(tx, ApiKeyEvents.updated, { projectId, apiKeyId: id, revoked: updated.manually_revoked_at !== null }, { projectId });
      return updated;
    });
    // This replica at once; the others when the event arrives.
    this.cache.invalidate(id);
    return row;
  }

  /** The key of `value` if it is a valid `kind` key of the project now; else the contract's error. */
  async check(projectId: string, kind: ApiKeyKind, value: string): Promise<ApiKeyRow> {
    const parsed = parseApiKey(value);
    // A string that is not a key (wrong shape or checksum) costs no lookup.
    const row = parsed ? await this.cache.get(hashSecret(value), parsed.id) : undefined;
    const problem = apiKeyProblem(
      row && { projectId: row.project_id, kind: row.type, expiresAt: row.expires_at, manuallyRevokedAt: row.manually_revoked_at },
      projectId,
      kind,
      new Date(),
    );
    if (problem) throw problem;
    return row!;
  }

  /**
   * A secret scanner reports `value` as leaked: revoke it (whatever its project) and e-mail its owners in the same
   * transaction. Public keys are meant to be public: PUBLIC_API_KEY_CANNOT_BE_REVOKED. Revoking a revoked key is a
   * quiet success (false).
   */
  async revokeLeaked(value: string): Promise<boolean> {
    const parsed = parseApiKey(value);
    const found = parsed ? await apiKeyStore.byHash(this.deps.pool, hashSecret(value)) : undefined;
    if (!found) throw knownError("API_KEY_NOT_FOUND");
    if (found.is_public) throw knownError("PUBLIC_API_KEY_CANNOT_BE_REVOKED");
    if (found.manually_revoked_at) return false;
    const recipients = await this.owners(found);
    const projectName = (await this.deps.settings.get(found.project_id)).displayName;
    const revoked = await withTransaction(this.deps.pool, async (tx) => {
      const row = await apiKeyStore.revoke(tx, found.id);
      if (!row) return false; // revoked concurrently
      await this.deps.outbox.enqueue(tx, ApiKeyEvents.updated, { projectId: row.project_id, apiKeyId: row.id, revoked: true }, { projectId: row.project_id });
      const content = leakedApiKeyRevokedEmail({ projectName, kind: row.type, description: row.description, lastFour: row.last_four });
      for (const r of recipients) await this.deps.mailer.request(tx, { projectId: row.project_id, to: r.email, userId: r.userId, content });
      return true;
    });
    this.cache.invalidate(found.id);
    this.deps.log.warn(
      { project_id: found.project_id, api_key_id: found.id, type: found.type, notified: recipients.length },
      revoked ? "leaked API key revoked at a secret scanner's report" : "leaked API key was revoked concurrently",
    );
    return revoked;
  }

  /**
   * A team was deleted (teams_permissions.team.deleted.v1): in the caller's transaction its keys are deleted (one
   * auth.api_key.deleted.v1 each, which drops them from every check cache) and the team is remembered as deleted, so
   * that no key is created for it afterwards. Idempotent: a second run finds nothing left to delete.
   */
  async deleteTeamKeysIn(tx: PoolClient, projectId: string, teamId: string): Promise<string[]> {
    await deletedTeamStore.lock(tx, projectId, teamId);
    await deletedTeamStore.record(tx, projectId, teamId);
    return this.deleteForOwnerIn(tx, projectId, "team", teamId);
  }

  /** Deletes an owner's keys inside the caller's transaction (the owner was deleted); one event per key. */
  async deleteForOwnerIn(tx: PoolClient, projectId: string, kind: ApiKeyKind, ownerId: string): Promise<string[]> {
    const ids = await apiKeyStore.deleteForOwner(tx, projectId, kind, ownerId);
    for (const id of ids) await this.deps.outbox.enqueue(tx, ApiKeyEvents.deleted, { projectId, apiKeyId: id }, { projectId });
    return ids;
  }

  private async owners(row: ApiKeyRow): Promise<readonly { userId: string; email: string }[]> {
    if (row.type === "team") {
      const managers = await this.deps.teams.apiKeyManagers(row.project_id, row.owner_id);
      if (managers.length === 0) this.deps.log.warn({ project_id: row.project_id, team_id: row.owner_id }, "no team member to tell about a revoked team API key");
      return managers;
    }
    try {
      const { user } = await this.deps.identity.users.getUser({ projectId: row.project_id, userId: row.owner_id });
      return user?.primaryEmail ? [{ userId: user.id, email: user.primaryEmail }] : [];
    } catch (err) {
      if (isPeerError(err, "USER_NOT_FOUND")) return [];
      throw err;
    }
  }
}
