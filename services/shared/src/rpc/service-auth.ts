import { createHmac } from "node:crypto";
import { safeEqual } from "../secrets/index.ts";

/**
 * Service-to-service authentication.
 *
 * Every internal call carries `x-vestibule-service-token: v2.<caller>.<unix seconds>.<signature>`, where the
 * signature is base64url(HMAC-SHA256(VESTIBULE_SERVICE_SECRET, "v2.<caller>.<unix seconds>.<target>")) and the
 * target is the RPC being called, `<package.Service>/<Method>`. The token is bound to its callee and method: the
 * callee recomputes the signature for the RPC it is serving, so a token seen on one call (in a log, a proxy, a packet
 * capture) cannot be replayed against another method or another service. It is accepted within ±2 minutes of its
 * timestamp, and callers mint a fresh one every 30 seconds per target. The callee then knows which service is calling
 * (it is logged with every line). A caller without a valid token is refused with Code.Unauthenticated; the only
 * unauthenticated RPC is the standard gRPC health check, so probes work without secrets.
 *
 * Version 1 tokens (`v1.<caller>.<seconds>.<sig>`, not bound to a target, ±5 minutes) are refused unless the callee
 * runs with VESTIBULE_ACCEPT_V1_SERVICE_TOKENS=true, which is meant only for the minutes of a rolling upgrade from a
 * release that minted them.
 *
 * The secret is shared by all services of one deployment (set it from your secret manager; `serviceSecretProblem`
 * refuses placeholders and low-entropy values at start-up). Deployments should also keep service ports on a private
 * network, or add mTLS at the mesh layer; the token guards against anything that reaches a port without the secret.
 */
export const SERVICE_TOKEN_HEADER = "x-vestibule-service-token";
const MAX_SKEW_SECONDS = 120;
const REMINT_SECONDS = 30;
const V1_MAX_SKEW_SECONDS = 300;

function sign(secret: string, body: string): string {
  return createHmac("sha256", secret).update(body).digest("base64url");
}

/** A token for calling `target` (`package.Service/Method`). */
export function mintServiceToken(secret: string, caller: string, target: string, nowSeconds = Math.floor(Date.now() / 1000)): string {
  if (!/^[a-z_][a-z0-9_-]*$/.test(caller)) throw new Error(`invalid caller name "${caller}"`);
  const head = `v2.${caller}.${nowSeconds}`;
  return `${head}.${sign(secret, `${head}.${target}`)}`;
}

export interface VerifyOptions {
  readonly nowSeconds?: number;
  /** Also accept unbound v1 tokens (rolling upgrades only). */
  readonly acceptV1?: boolean;
}

/** The caller's name, or undefined when the token is missing, forged, too old or minted for another target. */
export function verifyServiceToken(secret: string, token: string | null | undefined, target: string, opts: VerifyOptions = {}): string | undefined {
  if (!token) return undefined;
  const now = opts.nowSeconds ?? Math.floor(Date.now() / 1000);
  const parts = token.split(".");
  if (parts.length !== 4) return undefined;
  const [version, caller, ts, sig] = parts as [string, string, string, string];
  const issued = Number(ts);
  if (!/^\d{1,12}$/.test(ts) || !Number.isInteger(issued)) return undefined;
  if (version === "v2") {
    if (Math.abs(now - issued) > MAX_SKEW_SECONDS) return undefined;
    return safeEqual(sign(secret, `v2.${caller}.${ts}.${target}`), sig) ? caller : undefined;
  }
  if (version === "v1" && opts.acceptV1) {
    if (Math.abs(now - issued) > V1_MAX_SKEW_SECONDS) return undefined;
    return safeEqual(sign(secret, `v1.${caller}.${ts}`), sig) ? caller : undefined;
  }
  return undefined;
}

/** Caches a token per target and re-mints it every 30 seconds. */
export function serviceTokenSource(secret: string, caller: string): (target: string) => string {
  const tokens = new Map<string, { token: string; mintedAt: number }>();
  return (target) => {
    const now = Math.floor(Date.now() / 1000);
    let entry = tokens.get(target);
    if (!entry || now - entry.mintedAt >= REMINT_SECONDS) {
      entry = { token: mintServiceToken(secret, caller, target, now), mintedAt: now };
      tokens.set(target, entry);
    }
    return entry.token;
  };
}

/** Values shipped as examples in this repository and in common templates; a deployment must never run with them. */
const PLACEHOLDERS = ["change-me", "changeme", "change_me", "placeholder", "example", "secret-here", "your-secret", "replace-me", "xxxxxxxx"];

/**
 * Why a service secret is not acceptable, or null. At least 32 characters, none of the known placeholders, and at
 * least 128 bits by its character statistics (Shannon entropy per character × length, with at least 3 bits per
 * character): `openssl rand -base64 48` or 32 random bytes in hex pass easily; "a" × 64 or a sentence does not.
 */
export function serviceSecretProblem(secret: string): string | null {
  if (secret.length < 32) return "must be at least 32 characters long";
  const lower = secret.toLowerCase();
  const placeholder = PLACEHOLDERS.find((p) => lower.includes(p));
  if (placeholder) return `is a placeholder ("${placeholder}"); generate one with: openssl rand -base64 48`;
  const counts = new Map<string, number>();
  for (const c of secret) counts.set(c, (counts.get(c) ?? 0) + 1);
  let perChar = 0;
  for (const n of counts.values()) perChar -= (n / secret.length) * Math.log2(n / secret.length);
  if (perChar < 3 || perChar * secret.length < 128) {
    return `has too little entropy (about ${Math.floor(perChar * secret.length)} bits); generate one with: openssl rand -base64 48`;
  }
  return null;
}
