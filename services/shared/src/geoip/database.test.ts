/**
 * Our positional reader against geoip-lite's own `lookup` (which loads the same files into memory): the package stays
 * the oracle for what the data says: thousands of seeded random public addresses, the edges of ranges, known ones.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { isPublicIp, lookupIp, type EndUserIpInfo } from "./index.ts";

interface GeoIpLiteRecord {
  readonly range: readonly [number, number] | string;
  readonly country: string;
  readonly region: string;
  readonly city: string;
  readonly timezone: string;
  readonly ll: readonly [number | null, number | null];
}
const require = createRequire(import.meta.url);
const geoipLite = require("geoip-lite") as { lookup(ip: string): GeoIpLiteRecord | null };

/** What `lookupIp` answered when it wrapped geoip-lite: the package's record in the contract's shape. */
function oracle(ip: string): EndUserIpInfo | null {
  const r = geoipLite.lookup(ip);
  if (!r || !r.country) return null;
  return {
    ip,
    countryCode: r.country,
    regionCode: r.region || null,
    cityName: r.city || null,
    latitude: r.ll[0],
    longitude: r.ll[1],
    tzIdentifier: r.timezone || null,
  };
}

/** Deterministic 32-bit randoms (mulberry32), so a failure names an address that fails again. */
function randoms(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return (t ^ (t >>> 14)) >>> 0;
  };
}

const dotted = (n: number): string => [24, 16, 8, 0].map((shift) => (n >>> shift) & 0xff).join(".");

function expectSameAnswers(ips: readonly string[]): number {
  let located = 0;
  for (const ip of ips) {
    const ours = lookupIp(ip);
    expect(ours, ip).toEqual(oracle(ip));
    if (ours) located++;
  }
  return located;
}

describe("GeoIpDatabase against geoip-lite", () => {
  it("answers known addresses", () => {
    expect(lookupIp("8.8.8.8")).toMatchObject({ countryCode: "US" });
    expect(lookupIp("1.1.1.1")?.countryCode).toMatch(/^[A-Z]{2}$/);
    expect(lookupIp("2606:4700:4700::1111")?.countryCode).toBe("US");
    expectSameAnswers(["8.8.8.8", "81.2.69.142", "1.1.1.1", "2001:4860:4860::8888", "2606:4700:4700::1111", "2a00:1450:4001:80b::200e", "1.0.0.0", "223.255.255.255"]);
  });

  it("answers 3,000 random public IPv4 addresses and both edges of their ranges field by field", () => {
    const next = randoms(20);
    const ips: string[] = [];
    while (ips.length < 3_000) {
      const ip = dotted(next());
      if (!isPublicIp(ip)) continue;
      ips.push(ip);
      // The range's first and last address, and the neighbours just outside it (another range or a gap).
      const range = geoipLite.lookup(ip)?.range;
      if (Array.isArray(range)) {
        for (const n of [range[0] - 1, range[0], range[1], range[1] + 1]) if (n >= 0 && n <= 0xffffffff && isPublicIp(dotted(n))) ips.push(dotted(n));
      }
    }
    expect(expectSameAnswers(ips)).toBeGreaterThan(ips.length * 0.9);
  });

  it("answers 3,000 random public IPv6 addresses field by field, in and around the database's ranges", () => {
    const next = randoms(6);
    // Where the data has ranges: the first address of random records of geoip-city6.dat (48-byte records, 16-byte
    // start first), with random low bits, and the address just below; the oracle judges the answer.
    const city6 = readFileSync(join(dirname(require.resolve("geoip-lite")), "..", "data", "geoip-city6.dat"));
    const records = city6.length / 48;
    const ips: string[] = [];
    const push = (groups: number[]): void => {
      const ip = groups.map((g) => (g & 0xffff).toString(16)).join(":").replace(/(^|:)0(:0)+(:|$)/, "::");
      if (isPublicIp(ip)) ips.push(ip);
    };
    while (ips.length < 3_000) {
      const at = ((next() * 0x10000 + (next() & 0xffff)) % records) * 48;
      const start = Array.from({ length: 8 }, (_, i) => city6.readUInt16BE(at + 2 * i));
      push([...start.slice(0, 4), next(), next(), next(), next()]);
      push(start.map((g, i) => (i === 3 ? g - 1 : g)));
      // Anywhere in global unicast 2000::/4 (mostly unknown), sometimes zero-compressed.
      push([0x2000 | next(), next(), next(), ...(ips.length % 5 === 0 ? [0, 0, 0, 0] : [next(), next(), next(), next()]), next()]);
    }
    ips.push("64:ff9b::808:808", "2002:808:808::1");
    expect(expectSameAnswers(ips)).toBeGreaterThan(1_000);
    expect(lookupIp("::ffff:81.2.69.142")).toEqual(oracle("81.2.69.142"));
    expect(lookupIp("0:0:0:0:0:ffff:81.2.69.142")).toEqual(oracle("81.2.69.142"));
  });
});
