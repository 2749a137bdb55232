import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { seal, unseal } from "./sealing.ts";

const key = { id: "pk1", key: randomBytes(32) };
const where = { projectId: "p", storeId: "s", keyHash: "h" };

describe("vault sealing (issue 18: GCM IV and tag lengths enforced)", () => {
  it("opens what it sealed, and refuses a tag cut to 4 bytes or an IV that is not 12 bytes", () => {
    const sealed = seal(key, where, "8 bytes!");
    expect(unseal(key.key, where, sealed)).toBe("8 bytes!");
    const [v, id, iv, body] = sealed.split(".") as [string, string, string, string];
    const bytes = Buffer.from(body, "base64url");
    // The ciphertext and the first 4 bytes of its tag: GCM accepts it unless told the tag length.
    const truncated = `${v}.${id}.${iv}.${bytes.subarray(0, 12).toString("base64url")}`;
    expect(() => unseal(key.key, where, truncated)).toThrow(/malformed/);
    const longIv = `${v}.${id}.${Buffer.concat([Buffer.from(iv, "base64url"), Buffer.alloc(4)]).toString("base64url")}.${body}`;
    expect(() => unseal(key.key, where, longIv)).toThrow(/malformed/);
  });
});
