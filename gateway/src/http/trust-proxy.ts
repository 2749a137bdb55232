import { isIP } from "node:net";

/**
 * `VESTIBULE_TRUST_PROXY`: which `X-Forwarded-For` hops the gateway believes when it decides a client's IP (per-IP
 * limits, session IPs and places).
 *
 * - `false` (default): none; the client IP is the socket's peer. Right when clients connect directly.
 * - a hop count `N` (1-10): the last N addresses of `X-Forwarded-For` were added by proxies you run; the client IP is
 *   the one before them. With one balancer in front, set `1`.
 * - a list of proxy addresses or CIDRs (`10.0.0.0/8,192.168.1.5`): hops from these addresses are trusted, the client IP
 *   is the last address that is not one of them. Right when the balancers have known addresses.
 * - `true`: every hop, so a client can choose its own IP by sending the header. Accepted for compatibility, logged as a
 *   warning at start-up; never use it on a gateway clients can reach directly.
 *
 * The value is what fastify's `trustProxy` option takes: a boolean, a string of addresses, or a function of
 * (address, hop index) that trusts the first N hops (proxy-addr's meaning of a hop count).
 */
export type TrustProxySetting = boolean | string | ((address: string, hop: number) => boolean);

/** Why a VESTIBULE_TRUST_PROXY value is not acceptable, or null. */
export function trustProxyProblem(value: string): string | null {
  if (value === "true" || value === "false") return null;
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    return hops >= 1 && hops <= 10 ? null : "a hop count must be between 1 and 10";
  }
  for (const entry of value.split(",").map((e) => e.trim())) {
    const [address, prefix] = entry.split("/") as [string, string | undefined];
    const family = isIP(address);
    if (family === 0) return `must be true, false, a hop count or a list of proxy addresses/CIDRs; "${entry}" is none of these`;
    if (prefix !== undefined && !(/^\d+$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128))) return `bad prefix length in "${entry}"`;
  }
  return null;
}

/** The fastify `trustProxy` option for a valid VESTIBULE_TRUST_PROXY value. */
export function trustProxySetting(value: string): TrustProxySetting {
  if (value === "true") return true;
  if (value === "false") return false;
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    return (_address, hop) => hop < hops;
  }
  return value
    .split(",")
    .map((e) => e.trim())
    .join(",");
}
