/**
 * The gateway's readiness (`GET /health`): ready when every service answers its gRPC health check with SERVING (a
 * service listed with replicas: when one of them does), and not while the gateway drains after SIGTERM. Checks run
 * at most once per `ttlMs` (concurrent probes share one round), each with a short timeout, so a probe never piles
 * load on the services. Liveness is `GET /health/live`: a gateway whose services are down is not broken and must not
 * be restarted.
 */
import { HealthCheckResponse_ServingStatus as Status } from "@vestibule/proto/grpc/health/v1/health";
import { createHealthClient, replicaUrls } from "@vestibule/shared/rpc";

export interface ReadinessReport {
  readonly ready: boolean;
  readonly draining: boolean;
  /** Service → SERVING, NOT_SERVING, UNREACHABLE ... */
  readonly services: Readonly<Record<string, string>>;
}

export interface Readiness {
  check(): Promise<ReadinessReport>;
  /** From now on the gateway reports not ready (SIGTERM: let the balancer take it out before it closes). */
  drain(): void;
  readonly draining: boolean;
}

export function createReadiness(serviceUrls: Readonly<Record<string, string>>, options: { ttlMs?: number; timeoutMs?: number } = {}): Readiness {
  const ttlMs = options.ttlMs ?? 2_000;
  const timeoutMs = options.timeoutMs ?? 1_000;
  // A service listed with several replicas is SERVING when one of them is (the RPC clients avoid the others).
  const clients = Object.entries(serviceUrls).map(([name, url]) => ({ name, replicas: replicaUrls(url).map((u) => createHealthClient(u, timeoutMs)) }));
  let draining = false;
  let cached: { at: number; services: Record<string, string> } | undefined;
  let inFlight: Promise<Record<string, string>> | undefined;

  const probe = async (): Promise<Record<string, string>> => {
    const results = await Promise.all(
      clients.map(async ({ name, replicas }) => {
        const statuses = await Promise.all(
          replicas.map(async (client) => {
            try {
              const res = await client.check({ service: "" });
              return Status[res.status] ?? String(res.status);
            } catch {
              return "UNREACHABLE";
            }
          }),
        );
        return [name, statuses.find((s) => s === "SERVING") ?? statuses[0]!] as const;
      }),
    );
    return Object.fromEntries(results);
  };

  return {
    get draining() {
      return draining;
    },
    drain() {
      draining = true;
    },
    async check() {
      if (!cached || Date.now() - cached.at > ttlMs) {
        inFlight ??= probe().finally(() => (inFlight = undefined));
        const services = await inFlight;
        cached = { at: Date.now(), services };
      }
      const services = cached.services;
      const ready = !draining && Object.values(services).every((s) => s === "SERVING");
      return { ready, draining, services };
    },
  };
}

/** Plain-text body of /health: `OK`, or what is missing. */
export function describeReadiness(report: ReadinessReport): string {
  if (report.ready) return "OK";
  if (report.draining) return "draining";
  const missing = Object.entries(report.services).filter(([, s]) => s !== "SERVING").map(([n, s]) => `${n} ${s}`);
  return `not ready: ${missing.join(", ")}`;
}
