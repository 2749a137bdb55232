/**
 * Client-side crypto of the data vault (contract/sdk-calls.md §4), on Web Crypto only so it runs in browsers, Node
 * and workers alike. The server never sees a key or a value: keys are hashed and values encrypted from a secret the
 * developer chooses. The format is the published SDK's, so values written by either SDK can be read by the other.
 *
 *  K          = PBKDF2-SHA256(UTF-8(key), salt("…value-encryption-key-hash", secret), 100,000 iterations, 256 bits)
 *  hashed_key = base64(PBKDF2-SHA256(K, salt("…key-hash", secret), 1 iteration, 256 bits))
 *  value      = base64(01 00 ‖ salt16 ‖ iv12 ‖ AES-256-GCM(HKDF-SHA256(K, salt16, info), iv12, plaintext))
 */

/** PBKDF2 iterations of the key derivation (spec §9). */
export const DATA_VAULT_KEY_DERIVATION_ITERATIONS = 100_000;

const ITERATED_HASH_LABEL = "stack-crypto-helper-iterated-hash";
const DERIVED_KEY_LABEL = "stack-crypto-helper-derived-symmetric-key";
const VALUE_KEY_PURPOSE = "stack-data-vault-client-side-encryption-value-encryption-key-hash";
const KEY_HASH_PURPOSE = "stack-data-vault-client-side-encryption-key-hash";
const VALUE_ENCRYPTION_PURPOSE = "stack-data-vault-client-side-encryption-value-encryption-value-encryption";
const FORMAT_VERSION = [0x01, 0x00] as const;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function subtle(): SubtleCrypto {
  const s = (globalThis as { crypto?: Crypto }).crypto?.subtle;
  if (!s) throw new Error("The data vault needs Web Crypto (crypto.subtle), which this environment does not provide.");
  return s;
}

export function bytesToBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

export function base64ToBytes(b64: string): Uint8Array<ArrayBuffer> {
  const binary = atob(b64);
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

function requireString(name: string, value: unknown): asserts value is string {
  if (typeof value !== "string") throw new TypeError(`Data vault ${name} must be a string`);
}

async function iteratedHash(password: Uint8Array<ArrayBuffer>, purpose: string, secret: string, iterations: number): Promise<Uint8Array<ArrayBuffer>> {
  const salt = encoder.encode(JSON.stringify([ITERATED_HASH_LABEL, purpose, bytesToBase64(new Uint8Array()), bytesToBase64(encoder.encode(secret))]));
  const key = await subtle().importKey("raw", password, "PBKDF2", false, ["deriveBits"]);
  const bits = await subtle().deriveBits({ name: "PBKDF2", hash: "SHA-256", salt, iterations }, key, 256);
  return new Uint8Array(bits);
}

/** K: the per-key secret both the key hash and the value key come from. */
function deriveKeyMaterial(secret: string, key: string): Promise<Uint8Array<ArrayBuffer>> {
  return iteratedHash(encoder.encode(key), VALUE_KEY_PURPOSE, secret, DATA_VAULT_KEY_DERIVATION_ITERATIONS);
}

async function valueKey(material: Uint8Array<ArrayBuffer>, salt: Uint8Array<ArrayBuffer>): Promise<CryptoKey> {
  const base = await subtle().importKey("raw", material, "HKDF", false, ["deriveKey"]);
  const info = encoder.encode(JSON.stringify([DERIVED_KEY_LABEL, VALUE_ENCRYPTION_PURPOSE, "binary-key", bytesToBase64(salt)]));
  return subtle().deriveKey({ name: "HKDF", hash: "SHA-256", salt, info }, base, { name: "AES-GCM", length: 256 }, false, ["encrypt", "decrypt"]);
}

/** The `hashed_key` sent to the server for `key` (44 base64 characters). */
export async function hashDataVaultKey(secret: string, key: string): Promise<string> {
  requireString("secret", secret);
  requireString("key", key);
  const material = await deriveKeyMaterial(secret, key);
  return bytesToBase64(await iteratedHash(material, KEY_HASH_PURPOSE, secret, 1));
}

/** The `encrypted_value` sent to the server (random salt and IV: two encryptions of one value differ). */
export async function encryptDataVaultValue(secret: string, key: string, value: string): Promise<string> {
  requireString("secret", secret);
  requireString("key", key);
  requireString("value", value);
  const material = await deriveKeyMaterial(secret, key);
  const salt = crypto.getRandomValues(new Uint8Array(16));
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const cipher = new Uint8Array(await subtle().encrypt({ name: "AES-GCM", iv }, await valueKey(material, salt), encoder.encode(value)));
  const out = new Uint8Array(2 + 16 + 12 + cipher.length);
  out.set(FORMAT_VERSION, 0);
  out.set(salt, 2);
  out.set(iv, 18);
  out.set(cipher, 30);
  return bytesToBase64(out);
}

/** Decrypts an `encrypted_value`; a wrong secret or key fails GCM authentication and throws. */
export async function decryptDataVaultValue(secret: string, key: string, encryptedValue: string): Promise<string> {
  requireString("secret", secret);
  requireString("key", key);
  requireString("encrypted_value", encryptedValue);
  const bytes = base64ToBytes(encryptedValue);
  if (bytes.length < 2 + 16 + 12 + 16 || bytes[0] !== FORMAT_VERSION[0] || bytes[1] !== FORMAT_VERSION[1]) {
    throw new Error("Data vault value has an unknown format");
  }
  const material = await deriveKeyMaterial(secret, key);
  const salt = bytes.slice(2, 18);
  const iv = bytes.slice(18, 30);
  try {
    const plain = await subtle().decrypt({ name: "AES-GCM", iv }, await valueKey(material, salt), bytes.slice(30));
    return decoder.decode(plain);
  } catch (err) {
    throw new Error("Data vault value could not be decrypted: wrong secret or key, or the value was altered", { cause: err });
  }
}
