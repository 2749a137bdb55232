/**
 * Encryption at rest of one vault value under a project key: AES-256-GCM with a random 96-bit IV, the project, store
 * and key hash bound as additional data (a ciphertext moved to another row does not decrypt). Text format:
 * `vv1.<project key id>.<iv b64url>.<ciphertext+tag b64url>`. Pure functions, no I/O.
 */
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

const IV_BYTES = 12;
const TAG_BYTES = 16;

function aad(projectId: string, storeId: string, keyHash: string): Buffer {
  return Buffer.from(JSON.stringify(["vestibule-vault-entry", projectId, storeId, keyHash]), "utf8");
}

export function seal(key: { id: string; key: Buffer }, where: { projectId: string; storeId: string; keyHash: string }, plaintext: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", key.key, iv);
  cipher.setAAD(aad(where.projectId, where.storeId, where.keyHash));
  const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final(), cipher.getAuthTag()]);
  return `vv1.${key.id}.${iv.toString("base64url")}.${body.toString("base64url")}`;
}

/** The project key id a sealed value needs. */
export function sealedKeyId(sealed: string): string {
  const parts = sealed.split(".");
  if (parts.length !== 4 || parts[0] !== "vv1") throw new Error("not a sealed vault value");
  return parts[1]!;
}

export function unseal(key: Buffer, where: { projectId: string; storeId: string; keyHash: string }, sealed: string): string {
  const [, , ivB64, bodyB64] = sealed.split(".") as [string, string, string, string];
  const iv = Buffer.from(ivB64 ?? "", "base64url");
  const body = Buffer.from(bodyB64 ?? "", "base64url");
  // GCM takes any IV length and tags down to 4 bytes unless told: a short tag makes forgeries guessable (issue 18).
  if (iv.length !== IV_BYTES || body.length < TAG_BYTES) throw new Error("malformed sealed vault value (IV or tag length)");
  const decipher = createDecipheriv("aes-256-gcm", key, iv, { authTagLength: TAG_BYTES });
  decipher.setAAD(aad(where.projectId, where.storeId, where.keyHash));
  decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
  return Buffer.concat([decipher.update(body.subarray(0, body.length - TAG_BYTES)), decipher.final()]).toString("utf8");
}
