import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { masterKeys, readConfig, type MasterKey } from "../config/index.ts";
import { generateMasterKeyEntry } from "./index.ts";
import { PayloadOpenError, PayloadSealer } from "./payload-sealer.ts";

function keys(entries: string): readonly MasterKey[] {
  return readConfig({ keys: masterKeys("KEYS", "test keys") }, { KEYS: entries }).keys;
}

const k1 = generateMasterKeyEntry("k1");
const k2 = generateMasterKeyEntry("k2");
const text = (s: string) => new TextEncoder().encode(s);
const read = (b: Uint8Array) => new TextDecoder().decode(b);

function failure(fn: () => unknown): PayloadOpenError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(PayloadOpenError);
    return err as PayloadOpenError;
  }
  throw new Error("expected a PayloadOpenError");
}

describe("PayloadSealer", () => {
  it("opens in another process configured with the same master keys, and the sealed bytes reveal nothing", () => {
    const secret = `code-${randomBytes(16).toString("hex")}`;
    const sealed = new PayloadSealer(keys(k1)).seal(text(secret), "ctx");
    expect(read(new PayloadSealer(keys(k1)).open(sealed, "ctx"))).toBe(secret);
    const raw = Buffer.from(sealed);
    for (const encoding of ["utf8", "hex", "base64", "latin1"] as const) expect(raw.toString(encoding)).not.toContain(secret);
    expect(raw.toString("latin1")).not.toContain(Buffer.from(secret).toString("hex"));
    // A fresh IV each time: sealing the same plaintext twice gives different bytes.
    expect(Buffer.from(new PayloadSealer(keys(k1)).seal(text(secret), "ctx")).equals(raw)).toBe(false);
  });

  it("seals and opens empty payloads", () => {
    const s = new PayloadSealer(keys(k1));
    expect(s.open(s.seal(new Uint8Array(), "c"), "c")).toEqual(new Uint8Array());
  });

  it("binds the context: a payload moved to another context does not open", () => {
    const s = new PayloadSealer(keys(k1));
    const sealed = s.seal(text("hello"), "event:a|to:x@example.com");
    expect(failure(() => s.open(sealed, "event:a|to:y@example.com")).reason).toBe("not_authentic");
  });

  it("detects altered bytes and refuses malformed input", () => {
    const s = new PayloadSealer(keys(k1));
    const sealed = s.seal(text("hello"), "c");
    for (const at of [sealed.length - 1, sealed.length - 20, 5 + 12]) {
      const altered = Uint8Array.from(sealed);
      altered[at] = altered[at]! ^ 1;
      expect(failure(() => s.open(altered, "c")).reason).toBe("not_authentic");
    }
    expect(failure(() => s.open(new Uint8Array(), "c")).reason).toBe("malformed");
    expect(failure(() => s.open(Uint8Array.from([2, ...sealed.subarray(1)]), "c")).reason).toBe("malformed");
    expect(failure(() => s.open(sealed.subarray(0, 20), "c")).reason).toBe("malformed");
  });

  it("derives its keys apart from the raw master key (other key material under the same id does not open)", () => {
    const sealed = new PayloadSealer(keys(k1)).seal(text("hello"), "c");
    const other = generateMasterKeyEntry("k1");
    expect(failure(() => new PayloadSealer(keys(other)).open(sealed, "c")).reason).toBe("not_authentic");
  });

  describe("master-key rotation", () => {
    it("seals under the first key and opens payloads of any configured key", () => {
      const before = new PayloadSealer(keys(k1));
      const old = before.seal(text("sealed before"), "c");
      expect(before.activeKeyId).toBe("k1");

      // Step 1: consumers learn k2 (second); producers still seal with k1 and both open.
      const learning = new PayloadSealer(keys(`${k1},${k2}`));
      expect(learning.activeKeyId).toBe("k1");
      expect(read(learning.open(old, "c"))).toBe("sealed before");

      // Step 2: k2 first everywhere: new payloads use k2, old ones still open while k1 stays listed.
      const after = new PayloadSealer(keys(`${k2},${k1}`));
      expect(after.activeKeyId).toBe("k2");
      const fresh = after.seal(text("sealed after"), "c");
      expect(read(after.open(old, "c"))).toBe("sealed before");
      expect(read(learning.open(fresh, "c"))).toBe("sealed after");

      // A process that never learnt k2 cannot open the new payloads, and says which key it lacks.
      const err = failure(() => before.open(fresh, "c"));
      expect(err.reason).toBe("unknown_key");
      expect(err.keyId).toBe("k2");
      expect(err.message).toContain('"k2"');

      // Step 3: k1 removed: payloads sealed under it no longer open.
      expect(failure(() => new PayloadSealer(keys(k2)).open(old, "c")).reason).toBe("unknown_key");
    });
  });

  it("needs a master key", () => {
    expect(() => new PayloadSealer([])).toThrow(/at least one master key/);
  });
});
