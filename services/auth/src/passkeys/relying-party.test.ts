import { generateKeyPairSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import { isoCBOR } from "@simplewebauthn/server/helpers";
import { isWebAuthnHost, parseResponseJson, relyingPartyOf, userHandleOf, weakKeyReason } from "./relying-party.ts";

const clientData = (origin: unknown) => Buffer.from(JSON.stringify({ type: "webauthn.get", challenge: "x", origin })).toString("base64url");
const trust = { allowLocalhost: true, trustedDomains: ["https://app.example.com", "https://*.shop.example"] };

function rsaCose(bits: number): Uint8Array<ArrayBuffer> {
  const jwk = generateKeyPairSync("rsa", { modulusLength: bits }).publicKey.export({ format: "jwk" });
  const m = new Map<number, number | Uint8Array>([[1, 3], [3, -257], [-1, Buffer.from(jwk.n!, "base64url")], [-2, Buffer.from(jwk.e!, "base64url")]]);
  return new Uint8Array(isoCBOR.encode(m as never));
}

describe("passkey relying party", () => {
  it("accepts localhost and dotted domain names, nothing else", () => {
    expect(["localhost", "app.example.com", "a.b.co"].map(isWebAuthnHost)).toEqual([true, true, true]);
    expect(["127.0.0.1", "[::1]", "example", "exa mple.com", "-a.com", ""].map(isWebAuthnHost)).toEqual([false, false, false, false, false, false]);
  });

  it("takes the relying party from a trusted origin of the client data", () => {
    expect(relyingPartyOf(clientData("http://localhost:3000"), trust)).toEqual({ origin: "http://localhost:3000", rpId: "localhost" });
    expect(relyingPartyOf(clientData("https://app.example.com"), trust)).toEqual({ origin: "https://app.example.com", rpId: "app.example.com" });
    expect(relyingPartyOf(clientData("https://eu.shop.example"), trust)).toEqual({ origin: "https://eu.shop.example", rpId: "eu.shop.example" });
    expect(relyingPartyOf(clientData("https://evil.example"), trust)).toBe("The origin https://evil.example is not a trusted domain of this project");
    expect(relyingPartyOf(clientData("http://localhost:3000"), { ...trust, allowLocalhost: false })).toMatch(/not a trusted domain/);
    expect(relyingPartyOf(clientData("http://127.0.0.1:3000"), trust)).toBe("127.0.0.1 is an invalid domain");
    expect(relyingPartyOf(clientData("https://app.example.com/path"), trust)).toBe("Invalid origin: https://app.example.com/path");
    expect(relyingPartyOf(clientData(42), trust)).toBe("clientDataJSON has no origin");
    expect(relyingPartyOf("%%", trust)).toBe("clientDataJSON is not base64url");
    expect(relyingPartyOf(Buffer.from("{").toString("base64url"), trust)).toBe("clientDataJSON is not valid JSON");
  });

  it("refuses RSA moduli under 2048 bits", () => {
    expect(weakKeyReason(rsaCose(1024))).toBe("RSA keys must have at least 2048 bits (this one has 1024)");
    expect(weakKeyReason(rsaCose(2048))).toBeUndefined();
    expect(weakKeyReason(new Uint8Array([1, 2, 3]))).toBe("The credential public key cannot be decoded");
  });

  it("user handles are the uuid's 16 bytes", () => {
    expect(Buffer.from(userHandleOf("0b5e7a8e-4c1d-4e5f-9a0b-1c2d3e4f5a6b"), "base64url").toString("hex")).toBe("0b5e7a8e4c1d4e5f9a0b1c2d3e4f5a6b");
  });

  it("parses responses strictly", () => {
    const ok = { id: "AAAA", rawId: "AAAA", type: "public-key", response: { clientDataJSON: "AAAA", attestationObject: "AAAA" } };
    expect(parseResponseJson(JSON.stringify(ok), "registration")).toEqual(ok);
    expect(parseResponseJson(JSON.stringify(ok), "authentication")).toBe("response.authenticatorData must be base64url");
    expect(parseResponseJson(JSON.stringify({ ...ok, rawId: "BBBB" }), "registration")).toBe("rawId must equal the credential id");
    expect(parseResponseJson(JSON.stringify({ ...ok, response: { ...ok.response, transports: [1] } }), "registration")).toBe("response.transports must be a list of strings");
    expect(parseResponseJson("x".repeat(70_000), "registration")).toBe("The response is too large");
  });
});
