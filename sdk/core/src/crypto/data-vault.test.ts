import { describe, expect, it } from "vitest";
import {
  DATA_VAULT_KEY_DERIVATION_ITERATIONS,
  base64ToBytes,
  decryptDataVaultValue,
  encryptDataVaultValue,
  hashDataVaultKey,
} from "./data-vault.ts";

describe("data vault crypto", () => {
  it("derives keys with PBKDF2 at 100000 iterations", () => {
    expect(DATA_VAULT_KEY_DERIVATION_ITERATIONS).toBe(100_000);
  });

  it("hashes a key deterministically to 44 base64 characters (32 bytes), different per secret and key", async () => {
    const h = await hashDataVaultKey("secret-1", "user:42");
    expect(h).toMatch(/^[A-Za-z0-9+/]{43}=$/);
    expect(await hashDataVaultKey("secret-1", "user:42")).toBe(h);
    expect(await hashDataVaultKey("secret-2", "user:42")).not.toBe(h);
    expect(await hashDataVaultKey("secret-1", "user:43")).not.toBe(h);
  });

  it("encrypts with a fresh salt and IV (version 01 00) and decrypts only with the same secret and key", async () => {
    const a = await encryptDataVaultValue("s", "k", "card 4242");
    const b = await encryptDataVaultValue("s", "k", "card 4242");
    expect(a).not.toBe(b);
    expect([...base64ToBytes(a).slice(0, 2)]).toEqual([1, 0]);
    expect(base64ToBytes(a).length).toBe(2 + 16 + 12 + "card 4242".length + 16);
    expect(await decryptDataVaultValue("s", "k", a)).toBe("card 4242");
    await expect(decryptDataVaultValue("wrong", "k", a)).rejects.toThrow(/could not be decrypted/);
    await expect(decryptDataVaultValue("s", "other", a)).rejects.toThrow(/could not be decrypted/);
  });

  it("requires the secret and the encrypted value to be strings", async () => {
    await expect(hashDataVaultKey(undefined as unknown as string, "k")).rejects.toThrow("Data vault secret must be a string");
    await expect(decryptDataVaultValue("s", "k", 42 as unknown as string)).rejects.toThrow("Data vault encrypted_value must be a string");
  });
});
