import Fastify from "fastify";
import { describe, expect, it } from "vitest";
import { trustProxyProblem, trustProxySetting } from "./trust-proxy.ts";

/** The client IP fastify derives with a VESTIBULE_TRUST_PROXY value, for a request from `peer` with `xff`. */
async function clientIp(setting: string, peer: string, xff?: string): Promise<string> {
  const app = Fastify({ trustProxy: trustProxySetting(setting) });
  app.get("/", async (req) => req.ip);
  const res = await app.inject({ method: "GET", url: "/", remoteAddress: peer, headers: xff ? { "x-forwarded-for": xff } : {} });
  await app.close();
  return res.body;
}

describe("VESTIBULE_TRUST_PROXY", () => {
  it("false (default): the socket peer, whatever the client sends", async () => {
    expect(await clientIp("false", "203.0.113.9", "1.2.3.4")).toBe("203.0.113.9");
  });

  it("a hop count: the address before the last N hops, so a client cannot choose its IP", async () => {
    // One balancer (10.0.0.2) appends the client's real address; the client forged "6.6.6.6" in front of it.
    expect(await clientIp("1", "10.0.0.2", "6.6.6.6, 198.51.100.7")).toBe("198.51.100.7");
    expect(await clientIp("2", "10.0.0.2", "6.6.6.6, 198.51.100.7, 10.0.0.1")).toBe("198.51.100.7");
  });

  it("a list of proxy addresses: the last hop that is not a trusted proxy", async () => {
    expect(await clientIp("10.0.0.0/8", "10.0.0.2", "6.6.6.6, 198.51.100.7, 10.0.0.1")).toBe("198.51.100.7");
    // A peer outside the list is the client itself; its header is ignored.
    expect(await clientIp("10.0.0.0/8", "203.0.113.9", "6.6.6.6")).toBe("203.0.113.9");
  });

  it("true trusts every hop (the unsafe compatibility value)", async () => {
    expect(await clientIp("true", "203.0.113.9", "6.6.6.6, 198.51.100.7")).toBe("6.6.6.6");
  });

  it("refuses values it cannot read", () => {
    for (const ok of ["false", "true", "1", "3", "10.0.0.0/8", "10.0.0.5, 192.168.1.0/24", "::1"]) expect(trustProxyProblem(ok), ok).toBeNull();
    for (const bad of ["0", "11", "yes", "10.0.0.0/33", "balancer.internal"]) expect(trustProxyProblem(bad), bad).not.toBeNull();
  });
});
