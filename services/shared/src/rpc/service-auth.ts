import { createHmac } from "node:crypto";
import { safeEqual } from "../secrets/index.ts";

/**
 * Service-to-service authentication.
 *
 * Every internal call carries `x-vestibule-service-token: v1.<caller>.<unix seconds>.<signature>`, where the
 * signature is base64url(HMAC-SHA256(VESTIBULE_SERVICE_SECRET, "v1.<caller>.<unix seconds>")). The callee checks
 * the signature in constant time and that the timestamp is within ±5 minutes, then knows which service is calling
 * (it is logged with every line). A caller without a valid token is refused with Code.Unauthenticated; the only
 * unauthenticated RPC is the standard gRPC health check, so probes work without secrets.
 *
 * The secret is shared by all services of one deployment (set it from your secret manager). Tokens are minted
 * fresh every minute, so a captured token is useless after five minutes. Production deployments should also keep
 * service ports on a private network (or add mTLS at the mesh layer); the token guards against anything that
 * reaches the port without the secret.
 */
export const SERVICE_TOKEN_HEADER = "x-vestibule-service-token";
const MAX_SKEW_SECONDS = 300;

export function mintServiceToken(secret: string, caller: string, nowSeconds = Math.floor(Date.now() / 1000)): string {
  if (!/^[a-z_][a-z0-9_-]*$/.test(caller)) throw new Error(`invalid caller name "${caller}"`);
  const body = `v1.${caller}.${nowSeconds}`;
  return `${body}.${createHmac("sha256", secret).update(body).digest("base64url")}`;
}

/** Returns the caller's name, or undefined when the token is missing, forged or too old. */
export function verifyServiceToken(secret: string, token: string | null | undefined, nowSeconds = Math.floor(Date.now() / 1000)): string | undefined {
  if (!token) return undefined;
  const parts = token.split(".");
  if (parts.length !== 4 || parts[0] !== "v1") return undefined;
  const [, caller, ts, sig] = parts as [string, string, string, string];
  const issued = Number(ts);
  if (!Number.isInteger(issued) || Math.abs(nowSeconds - issued) > MAX_SKEW_SECONDS) return undefined;
  const expected = createHmac("sha256", secret).update(`v1.${caller}.${ts}`).digest("base64url");
  return safeEqual(expected, sig) ? caller : undefined;
}

/** Caches a token per caller and re-mints it every minute. */
export function serviceTokenSource(secret: string, caller: string): () => string {
  let token = "";
  let mintedAt = 0;
  return () => {
    const now = Math.floor(Date.now() / 1000);
    if (now - mintedAt >= 60) {
      token = mintServiceToken(secret, caller, now);
      mintedAt = now;
    }
    return token;
  };
}
