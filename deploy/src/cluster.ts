/**
 * The platform with replicas, on one machine (`npm run start:cluster`, the fault tests): `replicas` processes of
 * every service and of the gateway (startPlatform), a 3-node NATS JetStream cluster with streams at 3 replicas
 * (nats-cluster.ts), and a small HTTP balancer in front of the gateways (balancer.ts). Services reach each other's
 * replicas through their URL lists (rpc/replicas.ts); nothing else stands between them.
 */
import { startBalancer, type Balancer } from "./balancer.ts";
import { startNatsCluster, type NatsCluster } from "./nats-cluster.ts";
import { freePorts, startPlatform, type Platform, type PlatformOptions } from "./platform.ts";

export interface ClusterOptions extends Omit<PlatformOptions, "natsUrl" | "replicas" | "publicUrl"> {
  /** Processes per service and gateways. Default 2. */
  replicas?: number;
  /** NATS nodes. Default 3 (streams get min(3, nodes) replicas). */
  natsNodes?: number;
  /** Port of the balancer (the public URL). Default (or 0): a free port. */
  balancerPort?: number;
  /** How long a gateway reports draining before it closes after SIGTERM. Default 1 s (4 balancer probes). */
  drainDelayMs?: number;
}

export interface Cluster {
  /** The balancer: the cluster's public base URL. */
  readonly url: string;
  readonly platform: Platform;
  readonly nats: NatsCluster;
  readonly balancer: Balancer;
  /** Gateways, services, balancer, then NATS. Idempotent. */
  stop(): Promise<void>;
}

export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const host = options.host ?? "127.0.0.1";
  const connectHost = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host;
  const nodes = options.natsNodes ?? 3;
  const balancerPort = options.balancerPort || (await freePorts(1, connectHost))[0]!;
  const sink = options.log?.sink ?? ((line: string) => void process.stdout.write(`${line}\n`));
  const nats = await startNatsCluster({
    nodes,
    host: connectHost,
    log: (line) => {
      if (/\[(ERR|FTL)\]/.test(line) && !/connect to route/.test(line)) sink(line);
    },
  });
  let platform: Platform | undefined;
  let balancer: Balancer | undefined;
  try {
    platform = await startPlatform({
      ...options,
      replicas: options.replicas ?? 2,
      natsUrl: nats.url,
      publicUrl: `http://localhost:${balancerPort}`,
      env: {
        VESTIBULE_EVENT_REPLICAS: String(Math.min(3, nodes)),
        // One hop: the balancer's X-Forwarded-For.
        VESTIBULE_TRUST_PROXY: "1",
        VESTIBULE_DRAIN_DELAY_MS: String(options.drainDelayMs ?? 1_000),
        ...options.env,
      },
    });
    balancer = await startBalancer({ backends: platform.gatewayUrls, port: balancerPort, host: connectHost });
  } catch (err) {
    await platform?.stop().catch(() => undefined);
    await nats.stop().catch(() => undefined);
    throw err;
  }
  const started = { platform, balancer };
  let stopping: Promise<void> | undefined;
  return {
    url: balancer.url,
    platform,
    nats,
    balancer,
    stop: () =>
      (stopping ??= (async () => {
        try {
          await started.platform.stop();
          await started.balancer.close();
        } finally {
          await nats.stop();
        }
      })()),
  };
}
