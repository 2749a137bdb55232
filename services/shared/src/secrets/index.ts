import { createCipheriv, createDecipheriv, createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { MasterKey } from "../config/index.ts";
import type { Pool, Queryable } from "../db/index.ts";
import { newId } from "../ids/index.ts";

/**
 * Encryption of secrets at rest (SMTP passwords, OAuth client secrets, TOTP secrets, signing keys, vault values).
 *
 * Envelope encryption: each value is encrypted with AES-256-GCM under a random 256-bit data key; data keys live in
 * the service's `data_keys` table wrapped (AES-256-GCM) by a master key from configuration (`VESTIBULE_MASTER_KEYS`).
 * A database dump alone therefore reveals nothing. Rotation:
 *  - master key: put the new key first in VESTIBULE_MASTER_KEYS and call `rewrapDataKeys()`; only the data_keys rows
 *    are rewritten, never the data;
 *  - data key: `rotateDataKey()` makes a new active data key; old values still decrypt with their own data key.
 *
 * Ciphertext format (text, safe for a `text` column): `vsb1.<data key id>.<iv b64url>.<ciphertext+tag b64url>`.
 * The optional `context` is bound as AES-GCM additional data (e.g. "project:<id>:smtp_password"), so a ciphertext
 * copied to another row or purpose does not decrypt.
 */
/** AES-GCM as used here: 96-bit IVs and full 128-bit tags, both enforced when decrypting. */
const GCM_IV_BYTES = 12;
const GCM_TAG_BYTES = 16;

export class SecretBox {
  private readonly unwrapped = new Map<string, Buffer>();
  private active: { id: string; key: Buffer } | undefined;

  constructor(
    private readonly pool: Pool,
    private readonly masterKeys: readonly MasterKey[],
  ) {
    if (masterKeys.length === 0) throw new Error("SecretBox needs at least one master key");
  }

  async encrypt(plaintext: string | Uint8Array, context = ""): Promise<string> {
    const dataKey = await this.activeDataKey();
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", dataKey.key, iv);
    cipher.setAAD(Buffer.from(context, "utf8"));
    const body = Buffer.concat([cipher.update(typeof plaintext === "string" ? Buffer.from(plaintext, "utf8") : plaintext), cipher.final(), cipher.getAuthTag()]);
    return `vsb1.${dataKey.id}.${iv.toString("base64url")}.${body.toString("base64url")}`;
  }

  async decryptToBuffer(ciphertext: string, context = ""): Promise<Buffer> {
    const parts = ciphertext.split(".");
    if (parts.length !== 4 || parts[0] !== "vsb1") throw new Error("not a SecretBox ciphertext");
    const [, keyId, ivB64, bodyB64] = parts as [string, string, string, string];
    const iv = Buffer.from(ivB64, "base64url");
    const body = Buffer.from(bodyB64, "base64url");
    // GCM takes any IV length and tags down to 4 bytes unless told: a short tag makes forgeries guessable (issue 18).
    if (iv.length !== GCM_IV_BYTES || body.length < GCM_TAG_BYTES) throw new Error("malformed SecretBox ciphertext (IV or tag length)");
    const key = await this.dataKey(keyId);
    const decipher = createDecipheriv("aes-256-gcm", key, iv, { authTagLength: GCM_TAG_BYTES });
    decipher.setAAD(Buffer.from(context, "utf8"));
    decipher.setAuthTag(body.subarray(body.length - GCM_TAG_BYTES));
    return Buffer.concat([decipher.update(body.subarray(0, body.length - GCM_TAG_BYTES)), decipher.final()]);
  }

  async decrypt(ciphertext: string, context = ""): Promise<string> {
    return (await this.decryptToBuffer(ciphertext, context)).toString("utf8");
  }

  /** Creates a new active data key; earlier ones stay for decryption. */
  async rotateDataKey(): Promise<string> {
    const key = randomBytes(32);
    const id = newId();
    const master = this.masterKeys[0]!;
    await this.pool.query("UPDATE data_keys SET active = false WHERE active");
    await this.pool.query("INSERT INTO data_keys (id, master_key_id, wrapped_key, active) VALUES ($1, $2, $3, true)", [
      id,
      master.id,
      wrap(master, key, id),
    ]);
    this.unwrapped.set(id, key);
    this.active = { id, key };
    return id;
  }

  /** Re-wraps every data key with the current (first) master key. Returns how many rows changed. */
  async rewrapDataKeys(): Promise<number> {
    const master = this.masterKeys[0]!;
    const { rows } = await this.pool.query<{ id: string; master_key_id: string; wrapped_key: Buffer }>(
      "SELECT id, master_key_id, wrapped_key FROM data_keys WHERE master_key_id <> $1",
      [master.id],
    );
    for (const row of rows) {
      const key = this.unwrap(row.id, row.master_key_id, row.wrapped_key);
      await this.pool.query("UPDATE data_keys SET master_key_id = $2, wrapped_key = $3 WHERE id = $1", [row.id, master.id, wrap(master, key, row.id)]);
    }
    return rows.length;
  }

  private async activeDataKey(): Promise<{ id: string; key: Buffer }> {
    if (this.active) return this.active;
    const { rows } = await this.pool.query<{ id: string; master_key_id: string; wrapped_key: Buffer }>(
      "SELECT id, master_key_id, wrapped_key FROM data_keys WHERE active ORDER BY created_at DESC LIMIT 1",
    );
    const row = rows[0];
    if (!row) {
      // Two replicas may race here; both keys are valid and stay decryptable, the later one wins as active.
      await this.rotateDataKey();
      return this.active!;
    }
    this.active = { id: row.id, key: this.unwrap(row.id, row.master_key_id, row.wrapped_key) };
    return this.active;
  }

  private async dataKey(id: string): Promise<Buffer> {
    const cached = this.unwrapped.get(id);
    if (cached) return cached;
    const { rows } = await (this.pool as Queryable).query<{ master_key_id: string; wrapped_key: Buffer }>(
      "SELECT master_key_id, wrapped_key FROM data_keys WHERE id = $1",
      [id],
    );
    const row = rows[0];
    if (!row) throw new Error(`unknown data key ${id}`);
    return this.unwrap(id, row.master_key_id, row.wrapped_key);
  }

  private unwrap(id: string, masterKeyId: string, wrapped: Buffer): Buffer {
    const cached = this.unwrapped.get(id);
    if (cached) return cached;
    const master = this.masterKeys.find((m) => m.id === masterKeyId);
    if (!master) throw new Error(`data key ${id} is wrapped by master key "${masterKeyId}", which is not configured`);
    if (wrapped.length !== GCM_IV_BYTES + 32 + GCM_TAG_BYTES) throw new Error(`data key ${id} is malformed (wrapped length ${wrapped.length})`);
    const iv = wrapped.subarray(0, GCM_IV_BYTES);
    const tag = wrapped.subarray(wrapped.length - GCM_TAG_BYTES);
    const decipher = createDecipheriv("aes-256-gcm", master.key, iv, { authTagLength: GCM_TAG_BYTES });
    decipher.setAAD(Buffer.from(`data-key:${id}`, "utf8"));
    decipher.setAuthTag(tag);
    const key = Buffer.concat([decipher.update(wrapped.subarray(GCM_IV_BYTES, wrapped.length - GCM_TAG_BYTES)), decipher.final()]);
    this.unwrapped.set(id, key);
    return key;
  }
}

function wrap(master: MasterKey, key: Buffer, id: string): Buffer {
  const iv = randomBytes(GCM_IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", master.key, iv);
  cipher.setAAD(Buffer.from(`data-key:${id}`, "utf8"));
  return Buffer.concat([iv, cipher.update(key), cipher.final(), cipher.getAuthTag()]);
}

/** SHA-256 hex of a high-entropy secret (API keys, refresh tokens, codes): what we store to look it up. */
export function hashSecret(secret: string): string {
  return createHash("sha256").update(secret, "utf8").digest("hex");
}

/** Constant-time comparison of two strings. */
export function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a, "utf8");
  const bb = Buffer.from(b, "utf8");
  return ab.length === bb.length && timingSafeEqual(ab, bb);
}

const CROCKFORD = "0123456789abcdefghjkmnpqrstvwxyz";

/**
 * A random string over the lowercase Crockford base32 alphabet (the contract's generator for refresh tokens,
 * verification codes and API key secrets): 45 characters carry 225 bits.
 */
export function randomCode(length = 45): string {
  const bytes = randomBytes(length);
  let out = "";
  for (let i = 0; i < length; i++) out += CROCKFORD[bytes[i]! & 31];
  return out;
}

/** A fresh master key in the `VESTIBULE_MASTER_KEYS` entry format. */
export function generateMasterKeyEntry(id = "k1"): string {
  return `${id}:${randomBytes(32).toString("base64")}`;
}

export { PayloadSealer, PayloadOpenError, type PayloadOpenFailure } from "./payload-sealer.ts";
