/**
 * Prometheus metrics of a process (prom-client): Node's default metrics, RPC counts/latencies/errors (a Connect
 * interceptor), Postgres pool usage and outbox lag (read when scraped), served on a separate plain-HTTP port
 * (`VESTIBULE_METRICS_PORT`, off when unset) because the services' own port speaks h2c only and the gateway's
 * is public. Scrape `http://<pod>:<port>/metrics`.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import type { Pool } from "../db/index.ts";
import type { EventBus } from "../events/index.ts";

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export interface ProcessMetrics {
  readonly registry: Registry;
  /** Counts and times every RPC this process serves (health checks excluded). */
  readonly rpcInterceptor: Interceptor;
  /** Pool size, idle and waiting clients of a Postgres pool. */
  observePool(pool: Pick<Pool, "totalCount" | "idleCount" | "waitingCount">): void;
  /** Unpublished outbox rows and the age of the oldest (events waiting for the relay), read at scrape time. */
  observeOutbox(pool: Pick<Pool, "query">, schema: string): void;
  /** Consumer lag of the durable consumers this process runs (EventBus.consumerLag), read at scrape time. */
  observeConsumers(bus: Pick<EventBus, "consumerLag">): void;
}

/** A registry with Node's default metrics (CPU, RSS, heap, event loop lag, GC), every series labelled `process`. */
export function createRegistry(processName: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ process: processName });
  collectDefaultMetrics({ register: registry });
  return registry;
}

export function createProcessMetrics(processName: string): ProcessMetrics {
  const registry = createRegistry(processName);
  const requests = new Counter({
    name: "vestibule_rpc_server_requests_total",
    help: "RPCs served, by method and result code",
    labelNames: ["method", "code"] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: "vestibule_rpc_server_duration_seconds",
    help: "Time to serve an RPC",
    labelNames: ["method"] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });

  const rpcInterceptor: Interceptor = (next) => async (req) => {
    if (req.service.typeName === "grpc.health.v1.Health") return next(req);
    const method = `${req.service.typeName}/${req.method.name}`;
    const end = duration.startTimer({ method });
    let code = "ok";
    try {
      return await next(req);
    } catch (err) {
      code = Code[ConnectError.from(err).code] ?? "unknown";
      throw err;
    } finally {
      end();
      requests.inc({ method, code });
    }
  };

  return {
    registry,
    rpcInterceptor,
    observePool(pool) {
      new Gauge({
        name: "vestibule_db_pool_clients",
        help: "Postgres pool clients by state (total, idle, waiting for a connection)",
        labelNames: ["state"] as const,
        registers: [registry],
        collect() {
          this.set({ state: "total" }, pool.totalCount);
          this.set({ state: "idle" }, pool.idleCount);
          this.set({ state: "waiting" }, pool.waitingCount);
        },
      });
    },
    observeConsumers(bus) {
      new Gauge({
        name: "vestibule_event_consumer_pending",
        help: "Events on the bus that a durable consumer of this process has not handled yet (consumer lag)",
        labelNames: ["consumer"] as const,
        registers: [registry],
        async collect() {
          this.reset();
          for (const { consumer, pending } of await bus.consumerLag().catch(() => [])) this.set({ consumer }, pending);
        },
      });
    },
    observeOutbox(pool, schema) {
      const read = async (): Promise<{ pending: number; age: number }> => {
        const { rows } = await pool.query<{ pending: string; age: number | null }>(
          `SELECT count(*) AS pending, extract(epoch FROM now() - min(created_at))::float8 AS age FROM ${schema}.outbox WHERE published_at IS NULL`,
        );
        return { pending: Number(rows[0]?.pending ?? 0), age: rows[0]?.age ?? 0 };
      };
      let last: Promise<{ pending: number; age: number }> | undefined;
      const once = () => (last ??= read().finally(() => setTimeout(() => (last = undefined), 0)));
      new Gauge({
        name: "vestibule_outbox_pending_events",
        help: "Events written to the outbox and not yet published to the bus",
        registers: [registry],
        async collect() {
          this.set((await once().catch(() => ({ pending: Number.NaN, age: Number.NaN }))).pending);
        },
      });
      new Gauge({
        name: "vestibule_outbox_lag_seconds",
        help: "Age of the oldest unpublished outbox event (0 when none)",
        registers: [registry],
        async collect() {
          this.set((await once().catch(() => ({ pending: Number.NaN, age: Number.NaN }))).age);
        },
      });
    },
  };
}

export interface HttpMetrics {
  observe(method: string, route: string, status: number, seconds: number): void;
}

/** HTTP request counts and latencies by method, route pattern and status (the gateway). */
export function createHttpMetrics(registry: Registry): HttpMetrics {
  const requests = new Counter({
    name: "vestibule_http_requests_total",
    help: "HTTP requests answered, by method, route pattern and status",
    labelNames: ["method", "route", "status"] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: "vestibule_http_request_duration_seconds",
    help: "Time to answer an HTTP request",
    labelNames: ["method", "route"] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  return {
    observe(method, route, status, seconds) {
      requests.inc({ method, route, status: String(status) });
      duration.observe({ method, route }, seconds);
    },
  };
}

export interface MetricsServer {
  readonly port: number;
  close(): Promise<void>;
}

/** Plain HTTP/1.1 server answering `GET /metrics` (anything else 404). */
export async function serveMetrics(registry: Registry, port: number, host = "127.0.0.1"): Promise<MetricsServer> {
  const server = http.createServer((req, res) => {
    if (req.method !== "GET" || req.url?.split("?")[0] !== "/metrics") {
      res.writeHead(404, { "content-type": "text/plain" }).end("Not found");
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { "content-type": registry.contentType }).end(text),
      (err: Error) => res.writeHead(500, { "content-type": "text/plain" }).end(`metrics failed: ${err.message}`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
