/**
 * Offline geo-IP: where an end user's IP address is, from the GeoLite2-derived database that the `geoip-lite`
 * package ships in its npm tarball (nothing is downloaded at install or run time; refreshing the data means bumping
 * the pinned package version).
 *
 * The data files are read by position (./database.ts), never loaded: opening them costs nothing and the process
 * holds no copy of the data (issue 20). They open on the first lookup, or at start-up with `preloadGeoIp()` so that a
 * missing file fails the start instead of a request. Lookups are synchronous binary searches over the files.
 *
 * Private, loopback, link-local, shared (CGNAT), documentation and other non-routable addresses answer `null`, as do
 * malformed strings and addresses the database does not know.
 */
import net from "node:net";
import { GeoIpDatabase } from "./database.ts";

/** The contract's end-user IP info object (camelCase on the wire, e.g. `last_used_at_end_user_ip_info`). */
export interface EndUserIpInfo {
  readonly ip: string;
  /** ISO 3166-1 alpha-2, e.g. "US". */
  readonly countryCode: string;
  /** ISO 3166-2 subdivision code without the country prefix (e.g. "CA" for California, "ENG"), null when unknown. */
  readonly regionCode: string | null;
  readonly cityName: string | null;
  readonly latitude: number | null;
  readonly longitude: number | null;
  /** IANA time zone, e.g. "America/Los_Angeles". */
  readonly tzIdentifier: string | null;
}

let geoip: GeoIpDatabase | undefined;

function database(): GeoIpDatabase {
  geoip ??= new GeoIpDatabase();
  return geoip;
}

/** Opens the geo-IP data files now (they otherwise open on the first `lookupIp`); loads nothing into memory. */
export function preloadGeoIp(): void {
  database();
}

/** Address ranges that never locate an end user. */
const NOT_PUBLIC = new net.BlockList();
for (const [prefix, bits] of [
  ["0.0.0.0", 8], // "this" network
  ["10.0.0.0", 8], // private
  ["100.64.0.0", 10], // shared address space (CGNAT)
  ["127.0.0.0", 8], // loopback
  ["169.254.0.0", 16], // link-local
  ["172.16.0.0", 12], // private
  ["192.0.0.0", 24], // IETF protocol assignments
  ["192.0.2.0", 24], // documentation
  ["192.168.0.0", 16], // private
  ["198.18.0.0", 15], // benchmarking
  ["198.51.100.0", 24], // documentation
  ["203.0.113.0", 24], // documentation
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, broadcast
] as const) {
  NOT_PUBLIC.addSubnet(prefix, bits, "ipv4");
}
for (const [prefix, bits] of [
  ["::", 127], // unspecified and loopback
  ["64:ff9b:1::", 48], // local-use NAT64
  ["100::", 64], // discard-only
  ["2001:db8::", 32], // documentation
  ["fc00::", 7], // unique local
  ["fe80::", 10], // link-local
  ["ff00::", 8], // multicast
] as const) {
  NOT_PUBLIC.addSubnet(prefix, bits, "ipv6");
}

/** Canonical form of an address as it may arrive from proxies: trimmed, without brackets, zone or v4-mapped prefix. */
function normalizeIp(raw: string): { ip: string; family: "ipv4" | "ipv6" } | null {
  let ip = raw.trim();
  if (ip.startsWith("[") && ip.endsWith("]")) ip = ip.slice(1, -1);
  const zone = ip.indexOf("%");
  if (zone >= 0) ip = ip.slice(0, zone);
  const mapped = /^(?:::|(?:0{1,4}:){5})ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(ip);
  if (mapped) ip = mapped[1]!;
  const version = net.isIP(ip);
  if (version === 4) return { ip, family: "ipv4" };
  if (version === 6) return { ip: ip.toLowerCase(), family: "ipv6" };
  return null;
}

/** True for an address that can be located (public unicast). */
export function isPublicIp(raw: string): boolean {
  const n = normalizeIp(raw);
  return n !== null && !NOT_PUBLIC.check(n.ip, n.family);
}

/** Where `ip` is, or null for private/loopback/malformed addresses and addresses the database does not know. */
export function lookupIp(ip: string): EndUserIpInfo | null {
  const n = normalizeIp(ip);
  if (!n || NOT_PUBLIC.check(n.ip, n.family)) return null;
  const record = n.family === "ipv4" ? database().lookup4(n.ip) : database().lookup6(n.ip);
  if (!record || !record.country) return null;
  return {
    ip: n.ip,
    countryCode: record.country,
    regionCode: record.region || null,
    cityName: record.city || null,
    latitude: record.latitude,
    longitude: record.longitude,
    tzIdentifier: record.timezone || null,
  };
}
