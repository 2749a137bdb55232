import { describe, expect, it } from "vitest";
import { EgressRefusedError, isForbiddenAddress, parseAllowList, resolvePublicHost } from "./index.ts";

// Pure checks and an injected resolver: nothing here opens a connection.
describe("egress to owner-chosen hosts", () => {
  it("refuses loopback, private, link-local (cloud metadata), CGNAT, multicast and reserved addresses", () => {
    for (const a of ["127.0.0.1", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1", "169.254.169.254", "100.64.0.1", "0.0.0.0", "224.0.0.1", "255.255.255.255", "198.18.0.1"]) {
      expect(isForbiddenAddress(a), a).toBe(true);
    }
    for (const a of ["::1", "::", "fe80::1", "fc00::1", "fd00:ec2::254", "ff02::1", "::ffff:127.0.0.1", "::ffff:7f00:1", "64:ff9b::a9fe:a9fe", "::ffff:10.0.0.1"]) {
      expect(isForbiddenAddress(a), a).toBe(true);
    }
    expect(isForbiddenAddress("not an ip")).toBe(true);
  });

  it("allows public addresses, and private ones the operator lists", () => {
    for (const a of ["8.8.8.8", "1.1.1.1", "172.32.0.1", "2606:4700:4700::1111", "::ffff:8.8.8.8"]) expect(isForbiddenAddress(a), a).toBe(false);
    const allow = parseAllowList("10.0.5.0/24, 127.0.0.1");
    expect(isForbiddenAddress("10.0.5.9", allow)).toBe(false);
    expect(isForbiddenAddress("10.0.6.9", allow)).toBe(true);
    expect(isForbiddenAddress("127.0.0.1", allow)).toBe(false);
    expect(isForbiddenAddress("127.0.0.2", allow)).toBe(true);
    expect(() => parseAllowList("10.0.0.0/33")).toThrow(/prefix/);
    expect(() => parseAllowList("intranet")).toThrow(/not an IP/);
  });

  it("resolves a name once, refuses it whole when any address is private, and returns the checked address", async () => {
    const dns = (answers: Record<string, string[]>) => async (h: string) => (answers[h] ?? []).map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
    const resolver = dns({ "smtp.example.com": ["203.0.114.10"], "rebind.example.com": ["93.184.216.34", "169.254.169.254"], "none.example.com": [] });
    expect(await resolvePublicHost("smtp.example.com", undefined, resolver)).toEqual({ address: "203.0.114.10", family: 4 });
    await expect(resolvePublicHost("rebind.example.com", undefined, resolver)).rejects.toBeInstanceOf(EgressRefusedError);
    await expect(resolvePublicHost("none.example.com", undefined, resolver)).rejects.toBeInstanceOf(EgressRefusedError);
    await expect(resolvePublicHost("169.254.169.254", undefined, resolver)).rejects.toMatchObject({ code: "EEGRESS" });
    await expect(resolvePublicHost("[::1]", undefined, resolver)).rejects.toMatchObject({ code: "EEGRESS" });
  });
});
