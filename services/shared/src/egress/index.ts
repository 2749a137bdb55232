import { lookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";

/**
 * Outbound connections to hosts that tenants choose (a project's own SMTP server today; webhook endpoints next). A
 * project owner must not be able to make the platform connect into its own network: the host is resolved once, every
 * address it resolves to must be public, and the connection then goes to that checked address (so a DNS answer that
 * changes between the check and the connect, "DNS rebinding", cannot slip a private address in).
 *
 * Refused: loopback, private (RFC 1918, unique local), carrier-grade NAT, link-local (which holds the cloud metadata
 * endpoints 169.254.169.254 and fd00:ec2::254), unspecified, multicast, reserved and documentation ranges, and the
 * same inside IPv4-mapped and NAT64 IPv6 addresses. Operators who need a private relay list it in an allow-list of
 * CIDRs (`VESTIBULE_EGRESS_ALLOW`, e.g. `10.0.5.0/24,127.0.0.1/32`).
 */

const FORBIDDEN_V4: readonly [string, number][] = [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.88.99.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
];
const FORBIDDEN_V6: readonly [string, number][] = [
  ["::", 128],
  ["::1", 128],
  ["100::", 64],
  ["2001:db8::", 32],
  ["fc00::", 7],
  ["fe80::", 10],
  ["ff00::", 8],
];

const forbidden = new BlockList();
for (const [net, prefix] of FORBIDDEN_V4) forbidden.addSubnet(net, prefix, "ipv4");
for (const [net, prefix] of FORBIDDEN_V6) forbidden.addSubnet(net, prefix, "ipv6");

/** An allow-list from `a.b.c.d/n,x:y::/n,...` (a bare address means that one host). Throws on a malformed entry. */
export function parseAllowList(spec: string | undefined): BlockList {
  const list = new BlockList();
  for (const raw of (spec ?? "").split(",")) {
    const entry = raw.trim();
    if (!entry) continue;
    const [address, prefixText] = entry.split("/") as [string, string | undefined];
    const family = isIP(address);
    if (family === 0) throw new Error(`not an IP address or CIDR: ${entry}`);
    const max = family === 4 ? 32 : 128;
    const prefix = prefixText === undefined ? max : Number(prefixText);
    if (!Number.isInteger(prefix) || prefix < 0 || prefix > max) throw new Error(`bad prefix length in ${entry}`);
    list.addSubnet(address, prefix, family === 4 ? "ipv4" : "ipv6");
  }
  return list;
}

/** The IPv4 address inside an IPv4-mapped (::ffff:a.b.c.d) or NAT64 (64:ff9b::a.b.c.d) IPv6 address. */
function embeddedV4(address: string): string | undefined {
  const lower = address.toLowerCase();
  for (const prefix of ["::ffff:", "64:ff9b::"]) {
    if (!lower.startsWith(prefix)) continue;
    const rest = lower.slice(prefix.length);
    if (isIP(rest) === 4) return rest;
    const hex = rest.split(":");
    if (hex.length === 2 && hex.every((h) => /^[0-9a-f]{1,4}$/.test(h))) {
      const n = (parseInt(hex[0]!, 16) << 16) | parseInt(hex[1]!, 16);
      return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join(".");
    }
  }
  return undefined;
}

/** True when connecting to `address` (an IP literal) is refused: not public and not on the allow-list. */
export function isForbiddenAddress(address: string, allow?: BlockList): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  const type = family === 4 ? "ipv4" : "ipv6";
  if (allow?.check(address, type)) return false;
  if (forbidden.check(address, type)) return true;
  const v4 = family === 6 ? embeddedV4(address) : undefined;
  if (v4 !== undefined) return !allow?.check(v4, "ipv4") && forbidden.check(v4, "ipv4");
  return false;
}

/** A refused outbound connection; `code` lets callers classify it without reading the text. */
export class EgressRefusedError extends Error {
  readonly code = "EEGRESS";
  constructor(readonly host: string) {
    super(`${host} resolves to an address on a private or internal network, which this platform does not connect to`);
    this.name = "EgressRefusedError";
  }
}

export interface ResolvedHost {
  readonly address: string;
  readonly family: 4 | 6;
}

/**
 * Resolves `host` (a name or an IP literal) and returns the first address to connect to, or throws
 * EgressRefusedError when any of its addresses is forbidden (a name that also resolves privately is refused whole).
 */
export async function resolvePublicHost(
  host: string,
  allow?: BlockList,
  resolve: (host: string) => Promise<readonly { address: string; family: number }[]> = (h) => lookup(h, { all: true, verbatim: true }),
): Promise<ResolvedHost> {
  const bare = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
  const literal = isIP(bare);
  const addresses = literal ? [{ address: bare, family: literal }] : await resolve(bare);
  if (addresses.length === 0 || addresses.some((a) => isForbiddenAddress(a.address, allow))) throw new EgressRefusedError(host);
  const first = addresses[0]!;
  return { address: first.address, family: first.family === 6 ? 6 : 4 };
}
