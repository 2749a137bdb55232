import { createHash } from "node:crypto";
import { ApiKeyType, type ApiKey } from "@vestibule/proto/auth/v1/api_key_service";
import { fromConnectError, isKnownError, knownError, type KnownError } from "@vestibule/shared/errors";
import type { ServiceClients } from "../clients.ts";

type Outcome = { readonly ok: ApiKey } | { readonly error: KnownError };

interface Entry {
  readonly outcome: Outcome;
  readonly until: number;
  readonly keyId: string;
}

/** The key id a user/team API key string names (contract endpoints.md §7), or undefined for any other string. */
export function apiKeyIdOf(value: string): string | undefined {
  const m = /^(?:sk|pk)_[0-9a-z]{45}([0-9a-f]{32})(?:user|team)[0-9a-z]574ck4u7h[0-9a-f]{8}$/.exec(value);
  if (!m) return undefined;
  const h = m[1]!;
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** Answers the gateway keeps: the valid key, or the API_KEY_NOT_VALID-family error it was refused with. */
const CACHEABLE = new Set(["API_KEY_NOT_FOUND", "WRONG_API_KEY_TYPE", "API_KEY_REVOKED", "API_KEY_EXPIRED"]);

/**
 * `POST /{user|team}-api-keys/check` answers from memory after the first check of a key: keyed by the SHA-256 of the
 * key string (the string itself is not kept), per project and expected kind. A valid answer lasts until the key's
 * own expiry or `ttlMs`; a refusal `ttlMs` (unknown keys `negativeTtlMs`). auth.api_key.* events, which every gateway
 * replica receives, drop the answers of that key at once, so a revoked key stops working everywhere as soon as the
 * event arrives (well within a second). Only the auth service's own answers are kept (never a failed call).
 * A string that is not shaped like a key is refused without a call. Bounded: past `maxEntries` it starts over.
 *
 * For `settleMs` after an invalidation, answers about that key are passed through but not kept: the auth replica
 * that answers may not have had the event yet, and its cached answer must not be pinned here for `ttlMs`.
 */
export class ApiKeyCheckCache {
  private readonly entries = new Map<string, Entry>();
  private readonly loading = new Map<string, Promise<Outcome>>();
  private readonly byKeyId = new Map<string, Set<string>>();
  private readonly generations = new Map<string, number>();
  private readonly settling = new Map<string, number>();

  constructor(
    private readonly clients: Pick<ServiceClients, "apiKeys">,
    private readonly ttlMs = 5 * 60_000,
    private readonly negativeTtlMs = 5_000,
    private readonly maxEntries = 100_000,
    private readonly settleMs = 2_000,
  ) {}

  /** The valid key of `value`, or throws the contract's error (API_KEY_NOT_FOUND, WRONG_API_KEY_TYPE, ...). */
  async check(projectId: string, kind: "user" | "team", value: string): Promise<ApiKey> {
    const keyId = apiKeyIdOf(value);
    if (!keyId) throw knownError("API_KEY_NOT_FOUND");
    const id = `${projectId}|${kind}|${createHash("sha256").update(value).digest("base64url")}`;
    const hit = this.entries.get(id);
    const now = Date.now();
    let outcome: Outcome;
    if (hit && hit.until > now) {
      outcome = hit.outcome;
    } else {
      let p = this.loading.get(id);
      if (!p) {
        p = this.load(id, keyId, projectId, kind, value);
        this.loading.set(id, p);
        // The load's error reaches every caller through `await p` below; this catch only keeps the clean-up
        // chain from being reported as an unhandled rejection.
        p.finally(() => this.loading.delete(id)).catch(() => {});
      }
      outcome = await p;
    }
    if ("error" in outcome) throw outcome.error;
    return outcome.ok;
  }

  private async load(id: string, keyId: string, projectId: string, kind: "user" | "team", value: string): Promise<Outcome> {
    const generation = this.generations.get(keyId) ?? 0;
    let outcome: Outcome;
    try {
      const { apiKey } = await this.clients.apiKeys.checkApiKey({ projectId, type: kind === "user" ? ApiKeyType.USER : ApiKeyType.TEAM, apiKey: value });
      outcome = { ok: apiKey! };
    } catch (err) {
      const known = fromConnectError(err);
      if (!isKnownError(known) || !CACHEABLE.has(known.code)) throw err;
      outcome = { error: known };
    }
    const settlingUntil = this.settling.get(keyId);
    if (settlingUntil !== undefined && settlingUntil <= Date.now()) this.settling.delete(keyId);
    if ((this.generations.get(keyId) ?? 0) === generation && !(settlingUntil !== undefined && settlingUntil > Date.now())) {
      const now = Date.now();
      const until =
        "ok" in outcome
          ? Math.min(now + this.ttlMs, outcome.ok.expiresAtMillis !== undefined ? Number(outcome.ok.expiresAtMillis) : Infinity)
          : now + (outcome.error.code === "API_KEY_NOT_FOUND" ? this.negativeTtlMs : this.ttlMs);
      if (this.entries.size >= this.maxEntries) this.clear();
      this.entries.set(id, { outcome, until, keyId });
      let ids = this.byKeyId.get(keyId);
      if (!ids) this.byKeyId.set(keyId, (ids = new Set()));
      ids.add(id);
    }
    return outcome;
  }

  invalidate(keyId: string): void {
    this.generations.set(keyId, (this.generations.get(keyId) ?? 0) + 1);
    if (this.settling.size >= this.maxEntries) this.settling.clear();
    this.settling.set(keyId, Date.now() + this.settleMs);
    for (const id of this.byKeyId.get(keyId) ?? []) {
      this.entries.delete(id);
      this.loading.delete(id);
    }
    this.byKeyId.delete(keyId);
  }

  clear(): void {
    for (const keyId of this.byKeyId.keys()) this.generations.set(keyId, (this.generations.get(keyId) ?? 0) + 1);
    this.entries.clear();
    this.byKeyId.clear();
    this.loading.clear();
  }
}
