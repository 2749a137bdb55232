import { describe, expect, it } from "vitest";
import { isPublicIp, lookupIp } from "./index.ts";

describe("lookupIp", () => {
  it("locates public IPv4 and IPv6 addresses from the shipped database", () => {
    const v4 = lookupIp("8.8.8.8");
    expect(v4).toMatchObject({ ip: "8.8.8.8", countryCode: "US", tzIdentifier: expect.stringMatching(/^America\//) });
    expect(typeof v4?.latitude).toBe("number");
    expect(typeof v4?.longitude).toBe("number");
    expect(lookupIp("81.2.69.142")).toMatchObject({ countryCode: "GB", regionCode: "ENG" });
    expect(lookupIp("2001:4860:4860::8888")).toMatchObject({ ip: "2001:4860:4860::8888", countryCode: "US" });
  });

  it("accepts the forms proxies send: spaces, brackets, zones, v4-mapped IPv6", () => {
    expect(lookupIp(" 8.8.8.8 ")?.countryCode).toBe("US");
    expect(lookupIp("[2001:4860:4860::8888]")?.countryCode).toBe("US");
    expect(lookupIp("::ffff:8.8.8.8")).toMatchObject({ ip: "8.8.8.8", countryCode: "US" });
  });

  it("answers null for private, loopback, link-local, CGNAT, documentation and malformed addresses", () => {
    for (const ip of ["10.1.2.3", "172.20.0.1", "192.168.1.1", "127.0.0.1", "169.254.1.1", "100.64.0.1", "192.0.2.1", "0.0.0.0",
      "::1", "::", "fe80::1", "fd12:3456::1", "::ffff:127.0.0.1", "2001:db8::1", "", "not-an-ip", "999.1.1.1"]) {
      expect(lookupIp(ip), ip).toBeNull();
      expect(isPublicIp(ip), ip).toBe(false);
    }
    expect(isPublicIp("8.8.8.8")).toBe(true);
  });

  it("holds no copy of the database: lookups read the files by position (issue 20, < 120 MB RSS per service)", () => {
    for (let i = 0; i < 1_000; i++) lookupIp(`${1 + (i % 223)}.${(i * 7) % 256}.${(i * 13) % 256}.1`);
    lookupIp("2001:4860:4860::8888");
    // geoip-lite itself keeps its ~110 MB of data files in Buffers.
    expect(process.memoryUsage().arrayBuffers).toBeLessThan(16 * 2 ** 20);
  });
});
