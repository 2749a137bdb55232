import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";
import type { MasterKey } from "../config/index.ts";

/** Format version of a sealed payload (its first byte). */
const VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** HKDF salt: separates these keys from every other use of the master keys (SecretBox wraps data keys with them). */
const HKDF_SALT = Buffer.from("vestibule/payload-sealer/v1", "utf8");

/** Why a sealed payload could not be opened. */
export type PayloadOpenFailure =
  /** Not a sealed payload of a known format version, or cut short. */
  | "malformed"
  /** Sealed under a master key id this process is not configured with (`keyId` says which). */
  | "unknown_key"
  /** Authentication failed: altered, sealed for another context, or under other key material with the same id. */
  | "not_authentic";

export class PayloadOpenError extends Error {
  constructor(
    readonly reason: PayloadOpenFailure,
    message: string,
    readonly keyId?: string,
  ) {
    super(message);
    this.name = "PayloadOpenError";
  }
}

/**
 * Seals small payloads that one service hands to another through storage it does not control alone: the producer's
 * outbox table and the event bus's log (NATS JetStream files, or the embedded bus's table), so that a copy of either
 * reveals nothing. No shared database table is needed: every service process reads the same master keys
 * (`VESTIBULE_MASTER_KEYS`), and each side derives the same AES-256-GCM key from a master key with HKDF-SHA256.
 *
 * Rotation: `seal` always uses the first master key; `open` finds the key by the id carried in the payload, so payloads
 * sealed before a rotation still open while their master key stays configured (second or later). Because producer and
 * consumer are different processes, a new master key must be known to every consumer (anywhere in the list) before
 * any producer puts it first.
 *
 * `context` is bound as AES-GCM additional data: the caller names what the payload belongs to (e.g. the event type, the
 * project and the recipient), so a payload copied into another message does not open there.
 *
 * Format (binary): version (1 byte, 1) · key id length (1 byte) · key id (ASCII) · IV (12 bytes) · ciphertext · tag
 * (16 bytes).
 */
export class PayloadSealer {
  private readonly keys = new Map<string, Buffer>();
  private readonly active: { id: string; idBytes: Buffer; key: Buffer };

  constructor(masterKeys: readonly MasterKey[]) {
    if (masterKeys.length === 0) throw new Error("PayloadSealer needs at least one master key");
    for (const master of masterKeys) {
      if (this.keys.has(master.id)) continue;
      this.keys.set(master.id, Buffer.from(hkdfSync("sha256", master.key, HKDF_SALT, Buffer.from(`payload-key:${master.id}`, "utf8"), 32)));
    }
    const first = masterKeys[0]!;
    const idBytes = Buffer.from(first.id, "ascii");
    if (idBytes.length === 0 || idBytes.length > 255) throw new Error("a master key id must be 1-255 ASCII characters");
    this.active = { id: first.id, idBytes, key: this.keys.get(first.id)! };
  }

  /** The id of the master key new payloads are sealed under. */
  get activeKeyId(): string {
    return this.active.id;
  }

  seal(plaintext: Uint8Array, context: string): Uint8Array {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv("aes-256-gcm", this.active.key, iv);
    cipher.setAAD(Buffer.from(context, "utf8"));
    const body = Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
    return new Uint8Array(Buffer.concat([Buffer.from([VERSION, this.active.idBytes.length]), this.active.idBytes, iv, body]));
  }

  /** The plaintext of a sealed payload; throws a PayloadOpenError saying why it cannot be opened. */
  open(sealed: Uint8Array, context: string): Uint8Array {
    const data = Buffer.from(sealed.buffer, sealed.byteOffset, sealed.byteLength);
    if (data.length < 2 || data[0] !== VERSION) throw new PayloadOpenError("malformed", "not a sealed payload of a known version");
    const idLength = data[1]!;
    const start = 2 + idLength;
    if (idLength === 0 || data.length < start + IV_BYTES + TAG_BYTES) throw new PayloadOpenError("malformed", "sealed payload is cut short");
    const keyId = data.subarray(2, start).toString("ascii");
    const key = this.keys.get(keyId);
    if (!key) throw new PayloadOpenError("unknown_key", `sealed under master key "${keyId}", which is not configured (VESTIBULE_MASTER_KEYS)`, keyId);
    const iv = data.subarray(start, start + IV_BYTES);
    const body = data.subarray(start + IV_BYTES);
    // The length check above fixes the IV at 12 bytes and the tag at 16; authTagLength makes GCM insist on it too.
    const decipher = createDecipheriv("aes-256-gcm", key, iv, { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.from(context, "utf8"));
    decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
    try {
      return new Uint8Array(Buffer.concat([decipher.update(body.subarray(0, body.length - TAG_BYTES)), decipher.final()]));
    } catch {
      throw new PayloadOpenError("not_authentic", `sealed payload (master key "${keyId}") does not authenticate for this context`, keyId);
    }
  }
}
