/**
 * Distributed traces (issue 20 item 6): with OTEL_EXPORTER_OTLP_ENDPOINT set, one sign-up is one trace from the
 * gateway through auth and identity to the e-mail service's consumer of the verification e-mail event, exported over
 * OTLP/HTTP to a collector on loopback (a small receiver here, speaking the OTLP/HTTP JSON protocol the exporter sends).
 * Without it, nothing is exported (the default).
 */
import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "@vestibule/shared/testing";
import { startTestPlatform, type TestPlatform } from "../src/test-platform.ts";
import { callPlatform, demoHeaders } from "./platform-api.ts";

interface ExportedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
}

const SPAN_KIND = { SERVER: 2, CLIENT: 3, CONSUMER: 5 } as const;

/** An OTLP/HTTP (JSON) trace receiver: every exported span, flattened. */
async function startCollector(): Promise<{ url: string; spans: ExportedSpan[]; posts: () => number; close(): Promise<void> }> {
  const spans: ExportedSpan[] = [];
  let posts = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (req.method === "POST" && req.url === "/v1/traces") {
        posts++;
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { resourceSpans?: Array<Record<string, any>> };
        for (const rs of body.resourceSpans ?? []) {
          const service = (rs.resource?.attributes ?? []).find((a: any) => a.key === "service.name")?.value?.stringValue ?? "";
          for (const ss of rs.scopeSpans ?? []) {
            for (const s of ss.spans ?? []) {
              const attributes = Object.fromEntries((s.attributes ?? []).map((a: any) => [a.key, Object.values(a.value ?? {})[0]]));
              spans.push({ service, traceId: s.traceId, spanId: s.spanId, parentSpanId: s.parentSpanId ?? "", name: s.name, kind: s.kind, attributes });
            }
          }
        }
      }
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    posts: () => posts,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

let collector: Awaited<ReturnType<typeof startCollector>>;
let tp: TestPlatform;

beforeAll(async () => {
  collector = await startCollector();
  tp = await startTestPlatform({ platform: { env: { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_BSP_SCHEDULE_DELAY: "100" } } });
}, 120_000);
afterAll(async () => {
  await tp?.stop();
  await collector?.close();
});

describe("OpenTelemetry traces", () => {
  it("one sign-up is one trace: gateway → auth → identity, and the e-mail service's consumer of the event", async () => {
    // The caller's own trace: the gateway continues it.
    const traceId = randomBytes(16).toString("hex");
    const res = await callPlatform(
      tp,
      "POST",
      "/auth/password/sign-up",
      { ...demoHeaders(tp, "client"), traceparent: `00-${traceId}-${randomBytes(8).toString("hex")}-01` },
      { email: `traced-${randomBytes(4).toString("hex")}@example.com`, password: "a traced password", verification_callback_url: "http://localhost:3000/handler/email-verification" },
    );
    expect(res.status).toBe(200);

    const inTrace = () => collector.spans.filter((s) => s.traceId === traceId);
    const find = (service: string, kind: number, name: string) => inTrace().find((s) => s.service === service && s.kind === kind && s.name === name);
    await waitFor(async () => find("vestibule-email", SPAN_KIND.CONSUMER, "auth.email.requested.v1 process"), 20_000);

    const gateway = find("vestibule-gateway", SPAN_KIND.SERVER, "POST /api/v1/auth/password/sign-up");
    expect(gateway?.attributes["http.response.status_code"]).toBe(200);
    const auth = find("vestibule-auth", SPAN_KIND.SERVER, "vestibule.auth.v1.PasswordService/SignUpWithPassword");
    const identity = find("vestibule-identity", SPAN_KIND.SERVER, "vestibule.identity.v1.UserService/CreateUser");
    const consumer = find("vestibule-email", SPAN_KIND.CONSUMER, "auth.email.requested.v1 process");
    expect(auth && identity && consumer).toBeTruthy();
    expect(consumer!.attributes["messaging.consumer.group.name"]).toBe("email-auth-email-requested");
    // Services call each other over the Connect protocol, and their spans say so.
    expect(auth!.attributes["rpc.system"]).toBe("connect_rpc");
    expect(auth!.attributes["rpc.service"]).toBe("vestibule.auth.v1.PasswordService");

    // Each span hangs under the one before it: parent links, across processes.
    const byId = new Map(inTrace().map((s) => [s.spanId, s]));
    const ancestors = (s: ExportedSpan): ExportedSpan[] => {
      const chain: ExportedSpan[] = [];
      for (let p = byId.get(s.parentSpanId); p; p = byId.get(p.parentSpanId)) chain.push(p);
      return chain;
    };
    expect(ancestors(auth!)).toContain(gateway);
    expect(ancestors(identity!)).toContain(auth);
    // The consumer continues the span that enqueued the event: auth's SignUpWithPassword.
    expect(ancestors(consumer!)).toContain(auth);
    // Client spans carry the calls between processes.
    expect(inTrace().some((s) => s.service === "vestibule-gateway" && s.kind === SPAN_KIND.CLIENT && s.name === "vestibule.auth.v1.PasswordService/SignUpWithPassword")).toBe(true);
  });
});
