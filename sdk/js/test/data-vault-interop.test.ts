/**
 * Data-vault values are interchangeable with the published SDK: a value stored through @stackframe/js's
 * getDataVaultStore is read by @vestibule/js and the other way round, with the same hashed key on the wire. The
 * server here is a small in-memory stand-in for the two data-vault endpoints (it only stores what it is sent, as the
 * real one does); the crypto on both ends is the SDKs' own.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as latest from "@stackframe/js";
import * as v2841 from "stackframe-js-2841";
import { StackServerApp } from "@vestibule/js";

let server: Server;
let baseUrl: string;
const stored = new Map<string, string>();
const hashedKeysSeen: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let raw = "";
    req.on("data", (c) => (raw += c));
    req.on("end", () => {
      const m = /^\/api\/v1\/data-vault\/stores\/([^/]+)\/(get|set)$/.exec(req.url ?? "");
      // The latest published SDK sends x-hexclave-* headers, 2.8.41 and ours x-stack-*.
      const header = (name: string) => req.headers[`x-stack-${name}`] ?? req.headers[`x-hexclave-${name}`];
      if (req.method !== "POST" || !m || header("access-type") !== "server" || header("secret-server-key") !== "ssk") {
        res.writeHead(400, { "content-type": "text/plain" }).end("unexpected request");
        return;
      }
      const body = JSON.parse(raw) as { hashed_key: string; encrypted_value?: string };
      const key = `${m[1]}/${body.hashed_key}`;
      hashedKeysSeen.push(body.hashed_key);
      if (m[2] === "set") {
        stored.set(key, body.encrypted_value!);
        res.writeHead(200, { "content-type": "application/json" }).end('{"success":true}');
      } else if (stored.has(key)) {
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ encrypted_value: stored.get(key) }));
      } else {
        const code = "DATA_VAULT_STORE_HASHED_KEY_DOES_NOT_EXIST";
        res.writeHead(200, {
          "content-type": "application/json",
          "x-stack-known-error": code,
          "x-hexclave-known-error": code,
          "x-stack-actual-status": "400",
          "x-hexclave-actual-status": "400",
        });
        res.end(JSON.stringify({ code, details: { store_id: m[1], hashed_key: body.hashed_key }, error: "not found" }));
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((r) => server.close(r));
});

const options = () => ({ baseUrl, projectId: "11111111-2222-4333-8444-555555555555", publishableClientKey: "pck", secretServerKey: "ssk", tokenStore: null, noAutomaticPrefetch: true });

describe.each([
  ["@stackframe/js 2.8.41", v2841],
  ["@stackframe/js latest", latest],
])("data vault with %s", (_name, sdk) => {
  it("reads what the published SDK stored, and the published SDK reads what we stored", async () => {
    const theirs = await new (sdk as typeof latest).StackServerApp(options() as never).getDataVaultStore("cards");
    const ours = await new StackServerApp(options()).getDataVaultStore("cards");
    const secret = `secret-${Math.random()}`;

    hashedKeysSeen.length = 0;
    await theirs.setValue("user:1", "4242 4242 4242 4242", { secret });
    expect(await ours.getValue("user:1", { secret })).toBe("4242 4242 4242 4242");
    expect(hashedKeysSeen[0]).toBe(hashedKeysSeen[1]);

    await ours.setValue("user:2", "ünïcødé ✓", { secret });
    expect(await theirs.getValue("user:2", { secret })).toBe("ünïcødé ✓");
    expect(hashedKeysSeen[2]).toBe(hashedKeysSeen[3]);

    expect(await ours.getValue("user:3", { secret })).toBeNull();
    expect(await theirs.getValue("user:3", { secret })).toBeNull();
    await expect(ours.getValue("user:1", { secret: "wrong secret" })).resolves.toBeNull(); // another secret hashes the key differently
  });
});
