import http2 from "node:http2";
import type { AddressInfo } from "node:net";
import { Code, ConnectError, type ConnectRouter, type Interceptor } from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { create } from "@bufbuild/protobuf";
import { Health, HealthCheckResponseSchema, HealthCheckResponse_ServingStatus as Status } from "@vestibule/proto/grpc/health/v1/health";
import { runWithContext, REQUEST_ID_HEADER } from "../context/index.ts";
import { newId } from "../ids/index.ts";
import type { Logger } from "../log/index.ts";
import { toConnectError } from "../errors/index.ts";
import { extractTraceContext, inSpan, rpcAttributes, SpanKind, tracingEnabled } from "../tracing/index.ts";
import { SERVICE_TOKEN_HEADER, verifyServiceToken } from "./service-auth.ts";

/** Serving status of the whole server (""), shared by Check and Watch. */
export class HealthState {
  private status: Status = Status.NOT_SERVING;
  private readonly watchers = new Set<() => void>();

  set(status: Status): void {
    this.status = status;
    for (const w of this.watchers) w();
  }

  get(): Status {
    return this.status;
  }

  changed(): Promise<void> {
    return new Promise((resolve) => {
      const w = () => {
        this.watchers.delete(w);
        resolve();
      };
      this.watchers.add(w);
    });
  }
}

export interface RpcServerOptions {
  /** Machine name of this service. */
  readonly name: string;
  readonly routes: (router: ConnectRouter) => void;
  readonly serviceSecret: string;
  /** Also accept unbound v1 service tokens (service-auth.ts; rolling upgrades only). Default false. */
  readonly acceptV1ServiceTokens?: boolean;
  readonly log: Logger;
  /** Fully-qualified names of the services registered by `routes`, reported by health checks. */
  readonly serviceNames: readonly string[];
  /** Interceptors around every call, outside the authentication (e.g. metrics: refused calls count too). */
  readonly interceptors?: readonly Interceptor[];
}

export interface RpcServer {
  readonly health: HealthState;
  listen(port: number, host?: string): Promise<number>;
  /** Graceful: NOT_SERVING, stop accepting, let in-flight calls finish (up to `graceMs`), then close. */
  close(graceMs?: number): Promise<void>;
  inFlight(): number;
}

const HEALTH_SERVICE = "grpc.health.v1.Health";
/**
 * The health "service" a liveness probe asks for: SERVING whenever the process answers, also while its database is
 * unreachable (restarting the process would not help) or while it drains. Readiness probes ask for "".
 */
export const LIVENESS_SERVICE = "liveness";

/**
 * A Connect/gRPC server over h2c with: service authentication, request-id propagation, conversion of thrown errors
 * to Connect errors (known errors keep their code; anything else is logged and answered with a bare Internal),
 * the gRPC health protocol, and graceful shutdown that drains in-flight calls.
 */
export function createRpcServer(opts: RpcServerOptions): RpcServer {
  const health = new HealthState();
  let active = 0;

  const interceptor: Interceptor = (next) => async (req) => {
    if (req.service.typeName === HEALTH_SERVICE) return next(req);
    const target = `${req.service.typeName}/${req.method.name}`;
    const caller = verifyServiceToken(opts.serviceSecret, req.header.get(SERVICE_TOKEN_HEADER), target, { acceptV1: opts.acceptV1ServiceTokens === true });
    if (!caller) {
      opts.log.warn({ method: req.method.name }, "refused RPC without valid service credentials");
      throw new ConnectError("missing or invalid service credentials", Code.Unauthenticated);
    }
    const requestId = req.header.get(REQUEST_ID_HEADER) || newId();
    active++;
    const handle = () =>
      runWithContext({ requestId, caller }, async () => {
        try {
          return await next(req);
        } catch (err) {
          const ce = toConnectError(err);
          if (ce.code === Code.Internal || ce.code === Code.Unknown) {
            opts.log.error({ err, method: `${req.service.typeName}/${req.method.name}` }, "RPC failed");
          }
          throw ce;
        }
      });
    try {
      if (!tracingEnabled()) return await handle();
      const parent = extractTraceContext((key) => req.header.get(key) ?? undefined);
      // Known errors (not found, refused...) are answers, not failures of the span.
      const isError = (err: unknown) => !(err instanceof ConnectError) || err.code === Code.Internal || err.code === Code.Unknown || err.code === Code.Unavailable;
      return await inSpan(target, { kind: SpanKind.SERVER, parent, attributes: { ...rpcAttributes(req, req.header.get("content-type")?.startsWith("application/grpc") ? "grpc" : "connect_rpc"), "vestibule.caller": caller }, isError }, handle);
    } finally {
      active--;
    }
  };

  const routes = (router: ConnectRouter) => {
    router.service(Health, {
      async check(req) {
        // Liveness: the process answers. Readiness ("" or a service name) also needs the database (startService).
        if (req.service === LIVENESS_SERVICE) return create(HealthCheckResponseSchema, { status: Status.SERVING });
        if (req.service === "" || req.service === opts.name || opts.serviceNames.includes(req.service)) {
          return create(HealthCheckResponseSchema, { status: health.get() });
        }
        throw new ConnectError(`unknown service ${req.service}`, Code.NotFound);
      },
      async *watch(req, ctx) {
        if (!(req.service === "" || req.service === opts.name || opts.serviceNames.includes(req.service))) {
          yield create(HealthCheckResponseSchema, { status: Status.SERVICE_UNKNOWN });
          return;
        }
        while (!ctx.signal.aborted) {
          yield create(HealthCheckResponseSchema, { status: health.get() });
          await Promise.race([health.changed(), new Promise((r) => ctx.signal.addEventListener("abort", r, { once: true }))]);
        }
      },
    });
    opts.routes(router);
  };

  const handler = connectNodeAdapter({ routes, interceptors: [...(opts.interceptors ?? []), interceptor], grpc: true, connect: true, grpcWeb: false });
  const server = http2.createServer(handler);
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on("session", (s) => {
    sessions.add(s);
    s.on("close", () => sessions.delete(s));
    // A peer that resets its connection fails only its own session (http2 closes it); without a listener the error
    // would be thrown as an uncaught exception. Routine for clients that go away, so it is logged at debug.
    s.on("error", (err) => opts.log.debug({ err: err.message }, "RPC client connection failed"));
  });

  return {
    health,
    inFlight: () => active,
    listen(port, host = "127.0.0.1") {
      return new Promise((resolve, reject) => {
        server.once("error", reject);
        server.listen(port, host, () => {
          server.off("error", reject);
          resolve((server.address() as AddressInfo).port);
        });
      });
    },
    async close(graceMs = 10_000) {
      health.set(Status.NOT_SERVING);
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // GOAWAY: clients open no new streams here and reconnect elsewhere; running streams finish, and each session
      // closes by itself once its last stream has been written out.
      const sessionsClosed = Promise.all(
        [...sessions].map((s) => new Promise<void>((resolve) => (s.closed ? resolve() : s.close(() => resolve())))),
      );
      const deadline = new Promise((r) => setTimeout(r, graceMs).unref());
      await Promise.race([sessionsClosed, deadline]);
      for (const s of sessions) s.destroy();
      await Promise.race([closed, new Promise((r) => setTimeout(r, 1000).unref())]);
    },
  };
}

export { Status as ServingStatus };
