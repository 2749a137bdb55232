/**
 * A software WebAuthn authenticator for tests: makes RegistrationResponseJSON (attestation "none") and
 * AuthenticationResponseJSON the way a browser with a platform authenticator does, with real keys (ES256 or RS256
 * via node:crypto) and CBOR from @simplewebauthn/server's helpers. Every knob a test needs to make a response wrong
 * (origin, relying-party id, challenge, counter, another credential) is an option.
 */
import { createHash, createSign, generateKeyPairSync, randomBytes, type KeyObject } from "node:crypto";
import { isoBase64URL, isoCBOR } from "@simplewebauthn/server/helpers";

const b64url = (b: Uint8Array) => Buffer.from(b).toString("base64url");
const sha256 = (b: Uint8Array | string) => createHash("sha256").update(b).digest();

export interface SoftCredential {
  readonly id: Buffer;
  readonly privateKey: KeyObject;
  readonly alg: "ES256" | "RS256";
  readonly userHandle: string;
  counter: number;
}

export interface CeremonyOptions {
  /** The page's origin (clientDataJSON); default `http://localhost:3000`. */
  origin?: string;
  /** The relying-party id the authenticator hashes; default the origin's host name. */
  rpId?: string;
  /** A challenge to sign instead of the options' one. */
  challenge?: string;
}

function coseKey(publicKey: KeyObject, alg: "ES256" | "RS256"): Uint8Array {
  const jwk = publicKey.export({ format: "jwk" });
  const m = new Map<number, number | Uint8Array>();
  if (alg === "ES256") {
    m.set(1, 2).set(3, -7).set(-1, 1).set(-2, Buffer.from(jwk.x!, "base64url")).set(-3, Buffer.from(jwk.y!, "base64url"));
  } else {
    m.set(1, 3).set(3, -257).set(-1, Buffer.from(jwk.n!, "base64url")).set(-2, Buffer.from(jwk.e!, "base64url"));
  }
  return isoCBOR.encode(m as never);
}

function clientData(type: "webauthn.create" | "webauthn.get", challenge: string, origin: string): Buffer {
  return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
}

export class SoftwareAuthenticator {
  readonly credentials: SoftCredential[] = [];

  constructor(private readonly defaults: { origin?: string } = {}) {}

  private where(o: CeremonyOptions): { origin: string; rpId: string } {
    const origin = o.origin ?? this.defaults.origin ?? "http://localhost:3000";
    return { origin, rpId: o.rpId ?? new URL(origin).hostname };
  }

  /** navigator.credentials.create(): a new resident credential for the options' user. */
  register(
    options: { challenge: string; user: { id: string } },
    o: CeremonyOptions & { alg?: "ES256" | "RS256"; rsaBits?: number; credentialId?: Buffer } = {},
  ): Record<string, unknown> {
    const { origin, rpId } = this.where(o);
    const alg = o.alg ?? "ES256";
    const { privateKey, publicKey } =
      alg === "ES256" ? generateKeyPairSync("ec", { namedCurve: "P-256" }) : generateKeyPairSync("rsa", { modulusLength: o.rsaBits ?? 2048 });
    const id = o.credentialId ?? randomBytes(32);
    const cred: SoftCredential = { id, privateKey, alg, userHandle: options.user.id, counter: 0 };
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(id.length);
    const counter = Buffer.alloc(4);
    const authData = Buffer.concat([
      sha256(rpId),
      Buffer.from([0x01 | 0x04 | 0x40]), // user present, user verified, attested credential data
      counter,
      Buffer.alloc(16), // AAGUID
      idLength,
      id,
      Buffer.from(coseKey(publicKey, alg)),
    ]);
    const attestationObject = isoCBOR.encode(new Map<string, unknown>([["fmt", "none"], ["attStmt", new Map()], ["authData", new Uint8Array(authData)]]) as never);
    this.credentials.push(cred);
    return {
      id: b64url(id),
      rawId: b64url(id),
      type: "public-key",
      clientExtensionResults: {},
      authenticatorAttachment: "platform",
      response: {
        clientDataJSON: b64url(clientData("webauthn.create", o.challenge ?? options.challenge, origin)),
        attestationObject: b64url(attestationObject),
        transports: ["internal"],
      },
    };
  }

  /** navigator.credentials.get(): an assertion by `credential` (default the newest) over the options' challenge. */
  authenticate(
    options: { challenge: string },
    o: CeremonyOptions & { credential?: SoftCredential; counter?: number; userHandle?: string | null } = {},
  ): Record<string, unknown> {
    const { origin, rpId } = this.where(o);
    const cred = o.credential ?? this.credentials[this.credentials.length - 1];
    if (!cred) throw new Error("no credential");
    cred.counter = o.counter ?? cred.counter + 1;
    const counter = Buffer.alloc(4);
    counter.writeUInt32BE(cred.counter);
    const authData = Buffer.concat([sha256(rpId), Buffer.from([0x01 | 0x04]), counter]);
    const data = clientData("webauthn.get", o.challenge ?? options.challenge, origin);
    const signer = createSign("sha256");
    signer.update(Buffer.concat([authData, sha256(data)]));
    const signature = signer.sign(cred.privateKey);
    return {
      id: b64url(cred.id),
      rawId: b64url(cred.id),
      type: "public-key",
      clientExtensionResults: {},
      authenticatorAttachment: "platform",
      response: {
        clientDataJSON: b64url(data),
        authenticatorData: b64url(authData),
        signature: b64url(signature),
        ...(o.userHandle === null ? {} : { userHandle: o.userHandle ?? cred.userHandle }),
      },
    };
  }
}

/** A fresh challenge as options carry it. */
export const randomChallenge = (): string => isoBase64URL.fromBuffer(new Uint8Array(randomBytes(32)));
