import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { create } from "@bufbuild/protobuf";
import { ProjectService } from "@vestibule/proto/identity/v1/project_service";
import { ProjectSchema } from "@vestibule/proto/identity/v1/project";
import { HealthCheckResponse_ServingStatus } from "@vestibule/proto/grpc/health/v1/health";
import { createRpcServer, createServiceClient, createHealthClient, LIVENESS_SERVICE, type RpcServer } from "../src/rpc/index.ts";
import { currentContext, runWithContext } from "../src/context/index.ts";
import { createLogger } from "../src/log/index.ts";
import { fromConnectError, knownError, KnownError } from "../src/errors/index.ts";

const secret = "a-test-service-secret-that-is-long-enough";
const log = createLogger({ service: "test", level: "silent" });
let server: RpcServer;
let baseUrl: string;
let release: () => void = () => {};

beforeAll(async () => {
  server = createRpcServer({
    name: "identity",
    serviceSecret: secret,
    log,
    serviceNames: [ProjectService.typeName],
    routes(router) {
      router.service(ProjectService, {
        async getProject(req) {
          if (req.projectId === "missing") throw knownError("PROJECT_NOT_FOUND", { project_id: "missing" });
          if (req.projectId.startsWith("long-")) throw knownError("PROJECT_NOT_FOUND", { project_id: req.projectId });
          if (req.projectId === "crash") throw new Error("database password is hunter2");
          if (req.projectId === "slow") await new Promise<void>((r) => (release = r));
          const ctx = currentContext();
          return { project: create(ProjectSchema, { id: req.projectId, displayName: `${ctx?.caller}|${ctx?.requestId}` }) };
        },
      });
    },
  });
  const port = await server.listen(0);
  server.health.set(HealthCheckResponse_ServingStatus.SERVING);
  baseUrl = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  await server.close(100);
});

describe("service RPC server", () => {
  it("refuses callers without valid service credentials", async () => {
    const anonymous = createClient(ProjectService, createGrpcTransport({ baseUrl }));
    await expect(anonymous.getProject({ projectId: "internal" })).rejects.toMatchObject({ code: Code.Unauthenticated });
    const forged = createServiceClient(ProjectService, { baseUrl, caller: "gateway", secret: "wrong-secret-wrong-secret-wrong-secret" });
    await expect(forged.getProject({ projectId: "internal" })).rejects.toMatchObject({ code: Code.Unauthenticated });
  });

  it("knows the caller and carries the request id", async () => {
    const client = createServiceClient(ProjectService, { baseUrl, caller: "gateway", secret });
    const res = await runWithContext({ requestId: "req-123" }, () => client.getProject({ projectId: "internal" }));
    expect(res.project?.displayName).toBe("gateway|req-123");
  });

  it("carries known errors with code and details, and hides internal errors", async () => {
    const client = createServiceClient(ProjectService, { baseUrl, caller: "gateway", secret });
    const err = await client.getProject({ projectId: "missing" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConnectError);
    expect((err as ConnectError).code).toBe(Code.NotFound);
    const known = fromConnectError(err);
    expect(known).toBeInstanceOf(KnownError);
    expect((known as KnownError).code).toBe("PROJECT_NOT_FOUND");
    expect((known as KnownError).details).toEqual({ project_id: "missing" });

    const crash = (await client.getProject({ projectId: "crash" }).catch((e: unknown) => e)) as ConnectError;
    expect(crash.code).toBe(Code.Internal);
    expect(crash.message).not.toContain("hunter2");
    expect(fromConnectError(crash)).toBeUndefined();
  });

  it("carries a known error that echoes a 20,000-character id (HTTP/2 header limits), shortened", async () => {
    // Unbounded, the message and detail of this error filled ~75 KB of trailers; HTTP/2 reset the stream and the
    // caller saw the service as down (the gateway answered 503 to the route fuzzer).
    const client = createServiceClient(ProjectService, { baseUrl, caller: "gateway", secret });
    const id = `long-${"a".repeat(20_000)}`;
    const err = await client.getProject({ projectId: id }).catch((e: unknown) => e);
    expect((err as ConnectError).code).toBe(Code.NotFound);
    const known = fromConnectError(err) as KnownError;
    expect(known.code).toBe("PROJECT_NOT_FOUND");
    const echoed = (known.details as { project_id: string }).project_id;
    expect(echoed.length).toBeLessThanOrEqual(512);
    expect(echoed.startsWith("long-aaa") && echoed.includes("…")).toBe(true);
    expect(known.message.length).toBeLessThanOrEqual(4_096);
    // The service stays reachable for the next call.
    expect((await client.getProject({ projectId: "internal" })).project?.id).toBe("internal");
  });

  it("answers health checks without credentials", async () => {
    const health = createHealthClient(baseUrl);
    expect((await health.check({ service: "" })).status).toBe(HealthCheckResponse_ServingStatus.SERVING);
    expect((await health.check({ service: ProjectService.typeName })).status).toBe(HealthCheckResponse_ServingStatus.SERVING);
    await expect(health.check({ service: "nope.v1.Nothing" })).rejects.toMatchObject({ code: Code.NotFound });
  });

  it("answers liveness while not ready (the database is down): a liveness probe must not restart the process", async () => {
    const health = createHealthClient(baseUrl);
    server.health.set(HealthCheckResponse_ServingStatus.NOT_SERVING);
    try {
      expect((await health.check({ service: "" })).status).toBe(HealthCheckResponse_ServingStatus.NOT_SERVING);
      expect((await health.check({ service: LIVENESS_SERVICE })).status).toBe(HealthCheckResponse_ServingStatus.SERVING);
    } finally {
      server.health.set(HealthCheckResponse_ServingStatus.SERVING);
    }
  });

  it("drains in-flight calls on graceful shutdown", async () => {
    const other = createRpcServer({
      name: "identity",
      serviceSecret: secret,
      log,
      serviceNames: [],
      routes(router) {
        router.service(ProjectService, {
          async getProject(req) {
            await new Promise((r) => setTimeout(r, 300));
            return { project: create(ProjectSchema, { id: req.projectId }) };
          },
        });
      },
    });
    const port = await other.listen(0);
    const client = createServiceClient(ProjectService, { baseUrl: `http://127.0.0.1:${port}`, caller: "gateway", secret });
    const inFlight = client.getProject({ projectId: "draining" });
    await new Promise((r) => setTimeout(r, 50));
    expect(other.inFlight()).toBe(1);
    const closing = other.close(5000);
    expect((await inFlight).project?.id).toBe("draining");
    await closing;
    expect(other.health.get()).toBe(HealthCheckResponse_ServingStatus.NOT_SERVING);
  });
});

describe("lost connections", () => {
  it("reports a call cut off by the peer (reset connection, reset stream) as Unavailable, not as a fault of the request", async () => {
    const net = await import("node:net");
    const http2 = await import("node:http2");
    // A peer that takes the connection and resets it, and one that resets every stream of a live HTTP/2 session.
    const resetting = net.createServer((socket) => socket.once("data", () => socket.resetAndDestroy()));
    const refusing = http2.createServer();
    const sessions = new Set<import("node:http2").ServerHttp2Session>();
    refusing.on("session", (session) => sessions.add(session));
    refusing.on("stream", (stream) => {
      stream.on("error", () => {});
      stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR);
    });
    const ports: number[] = [];
    for (const s of [resetting, refusing]) {
      await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
      ports.push((s.address() as import("node:net").AddressInfo).port);
    }
    try {
      for (const port of ports) {
        const client = createServiceClient(ProjectService, { baseUrl: `http://127.0.0.1:${port}`, caller: "test", secret });
        const err = await client.getProject({ projectId: "p" }).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(err).toBeInstanceOf(ConnectError);
        expect((err as ConnectError).code).toBe(Code.Unavailable);
      }
    } finally {
      for (const session of sessions) session.destroy();
      await Promise.all([resetting, refusing].map((s) => new Promise((r) => s.close(r))));
    }
  });
});
