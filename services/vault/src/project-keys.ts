import { randomBytes } from "node:crypto";
import type { Pool } from "@vestibule/shared/db";
import { withTransaction } from "@vestibule/shared/db";
import { newId } from "@vestibule/shared/ids";
import type { SecretBox } from "@vestibule/shared/secrets";
import { vaultStore, type ProjectKeyRow } from "./store/vault-store.ts";

export interface ProjectKey {
  readonly id: string;
  readonly key: Buffer;
}

function context(projectId: string, keyId: string): string {
  return `vault-project-key:${projectId}:${keyId}`;
}

/**
 * Per-project encryption keys of vault values (the middle layer of the envelope: master keys → the service's data
 * keys → project keys → values). Each project key is 32 random bytes stored only encrypted by the SecretBox; keys
 * are unwrapped once per replica and kept in memory. The active key of a project is re-read after `activeTtlMs`, so
 * a rotation made by another replica is followed within that time (older keys keep decrypting meanwhile).
 */
export class ProjectKeys {
  private readonly unwrapped = new Map<string, Buffer>();
  private readonly active = new Map<string, { key: ProjectKey; until: number }>();

  constructor(
    private readonly deps: { pool: Pool; secrets: SecretBox },
    private readonly activeTtlMs = 60_000,
  ) {}

  /** The key new values of the project are written with; created on first use. */
  async activeKey(projectId: string): Promise<ProjectKey> {
    const hit = this.active.get(projectId);
    if (hit && hit.until > Date.now()) return hit.key;
    let row = await vaultStore.activeKey(this.deps.pool, projectId);
    if (!row) {
      const fresh = await this.newKey(projectId);
      // Two replicas may race to create the first key; the loser uses the winner's.
      row = (await vaultStore.insertFirstKey(this.deps.pool, projectId, fresh)) ? fresh : await vaultStore.activeKey(this.deps.pool, projectId);
      if (!row) throw new Error(`no active vault key for project ${projectId}`);
    }
    const key = { id: row.id, key: await this.unwrap(projectId, row) };
    this.active.set(projectId, { key, until: Date.now() + this.activeTtlMs });
    return key;
  }

  /** Any key of the project by id (for values written under an older key). */
  async keyById(projectId: string, keyId: string): Promise<Buffer> {
    const cached = this.unwrapped.get(keyId);
    if (cached) return cached;
    const row = await vaultStore.keyById(this.deps.pool, projectId, keyId);
    if (!row) throw new Error(`vault key ${keyId} of project ${projectId} is missing`);
    return this.unwrap(projectId, row);
  }

  /** A new active key for the project; values stay under their keys until rewritten. */
  async rotate(projectId: string): Promise<string> {
    const fresh = await this.newKey(projectId);
    await withTransaction(this.deps.pool, (tx) => vaultStore.replaceActiveKey(tx, projectId, fresh));
    this.active.delete(projectId);
    return fresh.id;
  }

  forget(projectId: string): void {
    this.active.delete(projectId);
  }

  private async newKey(projectId: string): Promise<ProjectKeyRow> {
    const id = newId();
    const key = randomBytes(32);
    const wrapped = await this.deps.secrets.encrypt(key, context(projectId, id));
    this.unwrapped.set(id, key);
    return { id, wrapped_key: wrapped };
  }

  private async unwrap(projectId: string, row: ProjectKeyRow): Promise<Buffer> {
    const cached = this.unwrapped.get(row.id);
    if (cached) return cached;
    const key = await this.deps.secrets.decryptToBuffer(row.wrapped_key, context(projectId, row.id));
    this.unwrapped.set(row.id, key);
    return key;
  }
}
