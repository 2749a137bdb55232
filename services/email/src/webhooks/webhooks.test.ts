import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { parseAllowList } from "@vestibule/shared/egress";
import { Webhook as StandardWebhook } from "standardwebhooks";
import { Webhook as SvixWebhook } from "svix";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_RETRY_SCHEDULE_MS, retryDelayAfter } from "./config.ts";
import { postWebhook } from "./sender.ts";
import { newSigningSecret, signedHeaders } from "./signing.ts";
import { webhookMessageId } from "./store.ts";

let hits = 0;
const server = createServer((req, res) => {
  hits++;
  if (req.url === "/redirect") {
    res.writeHead(302, { location: "http://169.254.169.254/latest/meta-data/" }).end();
    return;
  }
  res.writeHead(200).end("x".repeat(5000));
});
let port = 0;
beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe("webhook sender", () => {
  const none = parseAllowList("");
  it("refuses loopback, private, metadata addresses and names resolving to loopback, before connecting", async () => {
    for (const url of [`http://127.0.0.1:${port}/`, `http://localhost:${port}/`, `http://[::1]:${port}/`, "http://10.0.0.7/", "http://169.254.169.254/latest/meta-data/", "http://[::ffff:127.0.0.1]/"]) {
      const r = await postWebhook(url, "{}", {}, { timeoutMs: 1000, allow: none });
      expect("error" in r && r.error, url).toMatch(/^Refused: .* private or internal network/);
    }
    expect(hits).toBe(0);
  });
  it("reaches an allow-listed receiver, keeps 1 KB of the answer and does not follow redirects", async () => {
    const allow = parseAllowList("127.0.0.1/32");
    const r = await postWebhook(`http://127.0.0.1:${port}/`, "{}", {}, { timeoutMs: 2000, allow });
    expect(r).toMatchObject({ status: 200 });
    expect("excerpt" in r && r.excerpt.length).toBe(1024);
    const redirect = await postWebhook(`http://127.0.0.1:${port}/redirect`, "{}", {}, { timeoutMs: 2000, allow });
    expect(redirect).toMatchObject({ status: 302 });
    expect(hits).toBe(2);
  });
  it("rejects non-http URLs", async () => {
    expect(await postWebhook("file:///etc/passwd", "{}", {}, { timeoutMs: 1000, allow: none })).toMatchObject({ error: "The endpoint URL must use http or https." });
  });
});

describe("signing", () => {
  it("signs with every secret so that standardwebhooks and svix verify with either", () => {
    const [a, b] = [newSigningSecret(), newSigningSecret()];
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const body = JSON.stringify({ type: "test.event", data: {} });
    const headers = signedHeaders([a, b], "msg_1", new Date(), body);
    expect(headers["webhook-signature"].split(" ")).toHaveLength(2);
    for (const s of [a, b]) {
      expect(new StandardWebhook(s).verify(body, headers)).toEqual(JSON.parse(body));
      expect(() => new SvixWebhook(s).verify(body, headers)).not.toThrow();
      expect(() => new SvixWebhook(newSigningSecret()).verify(body, headers)).toThrow();
    }
    expect(() => new StandardWebhook(newSigningSecret()).verify(body, headers)).toThrow();
  });
  it("derives a stable webhook-id per event and endpoint", () => {
    expect(webhookMessageId("e1", "p1")).toBe(webhookMessageId("e1", "p1"));
    expect(webhookMessageId("e1", "p1")).not.toBe(webhookMessageId("e1", "p2"));
    expect(webhookMessageId("e1", "p1")).toMatch(/^msg_[A-Za-z0-9_-]{27}$/);
  });
});

describe("retry schedule", () => {
  it("spans about a day with ±20% jitter, then gives up", () => {
    const total = DEFAULT_RETRY_SCHEDULE_MS.reduce((s, x) => s + x, 0);
    expect(total / 3_600_000).toBeGreaterThan(20);
    expect(total / 3_600_000).toBeLessThan(30);
    expect(retryDelayAfter(DEFAULT_RETRY_SCHEDULE_MS, 1, () => 0)).toBe(4_000);
    expect(retryDelayAfter(DEFAULT_RETRY_SCHEDULE_MS, 1, () => 1)).toBe(6_000);
    expect(retryDelayAfter(DEFAULT_RETRY_SCHEDULE_MS, DEFAULT_RETRY_SCHEDULE_MS.length + 1)).toBeUndefined();
  });
});
