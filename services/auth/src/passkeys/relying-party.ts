/**
 * The relying party of a project's passkeys (product spec: the server's relying-party id is a placeholder the SDK
 * replaces with the page's host name; the WebAuthn host must be localhost or a valid domain; RSA keys at least 2048
 * bits). The origin a browser reports in clientDataJSON must be one of the project's trusted domains (or localhost
 * when the project allows it); the relying-party id is then that origin's host name. Pure functions, no I/O.
 */
import { cose, decodeClientDataJSON, decodeCredentialPublicKey, isoBase64URL } from "@simplewebauthn/server/helpers";
import { isRedirectUrlTrusted, type RedirectTrust } from "../domain/redirect.ts";

/** What options carry instead of a relying-party id; the SDK puts the page's host name in its place. */
export const RP_ID_PLACEHOLDER = "THIS_VALUE_WILL_BE_REPLACED.example.com";

/** Algorithms offered and accepted: EdDSA, ES256, RS256 (COSE ids). */
export const SUPPORTED_ALGORITHMS = [-8, -7, -257];

export const MIN_RSA_BITS = 2048;

/** Longest credential or assertion JSON the service parses (real ones are a few KB; attestation certificates included). */
export const MAX_RESPONSE_JSON_LENGTH = 64 * 1024;

/** `localhost`, or a dotted DNS name with a letter TLD (no IP addresses, no ports). */
export function isWebAuthnHost(hostname: string): boolean {
  return hostname === "localhost" || /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i.test(hostname);
}

export interface RelyingParty {
  readonly origin: string;
  readonly rpId: string;
}

/**
 * The relying party a response was made for, from its clientDataJSON: the reported origin when it is trusted by the
 * project and its host is a WebAuthn host. A string is the reason it is refused.
 */
export function relyingPartyOf(clientDataJSON: unknown, trust: RedirectTrust): RelyingParty | string {
  if (typeof clientDataJSON !== "string" || !isoBase64URL.isBase64URL(clientDataJSON)) return "clientDataJSON is not base64url";
  let origin: unknown;
  try {
    origin = decodeClientDataJSON(clientDataJSON).origin;
  } catch {
    return "clientDataJSON is not valid JSON";
  }
  if (typeof origin !== "string") return "clientDataJSON has no origin";
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return `Invalid origin: ${origin}`;
  }
  if ((url.protocol !== "https:" && url.protocol !== "http:") || url.origin !== origin) return `Invalid origin: ${origin}`;
  if (!isWebAuthnHost(url.hostname)) return `${url.hostname} is an invalid domain`;
  if (!isRedirectUrlTrusted(`${origin}/`, trust)) return `The origin ${origin} is not a trusted domain of this project`;
  return { origin, rpId: url.hostname };
}

/** The reason a credential public key is refused (an RSA modulus under 2048 bits), or undefined. */
export function weakKeyReason(publicKey: Uint8Array<ArrayBuffer>): string | undefined {
  let key: ReturnType<typeof decodeCredentialPublicKey>;
  try {
    key = decodeCredentialPublicKey(publicKey);
  } catch {
    return "The credential public key cannot be decoded";
  }
  if (!(key instanceof Map)) return "The credential public key cannot be decoded";
  if (key.get(cose.COSEKEYS.kty) !== cose.COSEKTY.RSA) return undefined;
  const n = key.get(cose.COSEKEYS.n as never) as Uint8Array | undefined;
  if (!n) return "The RSA public key has no modulus";
  let start = 0;
  while (start < n.length && n[start] === 0) start++;
  const bytes = n.length - start;
  const bits = bytes === 0 ? 0 : (bytes - 1) * 8 + (32 - Math.clz32(n[start]!));
  return bits < MIN_RSA_BITS ? `RSA keys must have at least ${MIN_RSA_BITS} bits (this one has ${bits})` : undefined;
}

/** The WebAuthn user handle of a user: the 16 bytes of its uuid. */
export function userHandleBytes(userId: string): Uint8Array<ArrayBuffer> {
  return new Uint8Array(Buffer.from(userId.replace(/-/g, ""), "hex"));
}

export function userHandleOf(userId: string): string {
  return isoBase64URL.fromBuffer(userHandleBytes(userId));
}

/** A RegistrationResponseJSON / AuthenticationResponseJSON from a JSON text, or the reason it is not one. */
export function parseResponseJson(json: string, kind: "registration" | "authentication"): Record<string, unknown> | string {
  if (json.length > MAX_RESPONSE_JSON_LENGTH) return "The response is too large";
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return "The response is not JSON";
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return "The response must be an object";
  const r = value as Record<string, unknown>;
  const inner = r.response;
  if (typeof r.id !== "string" || !isoBase64URL.isBase64URL(r.id) || r.id === "") return "The credential id must be base64url";
  if (typeof r.rawId !== "string" || r.rawId !== r.id) return "rawId must equal the credential id";
  if (r.type !== "public-key") return 'type must be "public-key"';
  if (typeof inner !== "object" || inner === null || Array.isArray(inner)) return "response must be an object";
  const fields = kind === "registration" ? ["clientDataJSON", "attestationObject"] : ["clientDataJSON", "authenticatorData", "signature"];
  for (const f of fields) {
    const v = (inner as Record<string, unknown>)[f];
    if (typeof v !== "string" || v === "" || !isoBase64URL.isBase64URL(v)) return `response.${f} must be base64url`;
  }
  const handle = (inner as Record<string, unknown>).userHandle;
  if (handle !== undefined && handle !== null && (typeof handle !== "string" || !isoBase64URL.isBase64URL(handle))) return "response.userHandle must be base64url";
  const transports = (inner as Record<string, unknown>).transports;
  if (transports !== undefined && (!Array.isArray(transports) || transports.some((t) => typeof t !== "string" || t.length > 32) || transports.length > 10)) {
    return "response.transports must be a list of strings";
  }
  return r;
}
