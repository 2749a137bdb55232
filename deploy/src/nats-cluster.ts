/**
 * A local NATS JetStream cluster for `npm run start:cluster` and the fault tests: `nodes` nats-server processes
 * (the Debian package's binary, or NATS_SERVER_BIN) on loopback, free ports, storage in a temporary directory that
 * is removed on stop. Nodes can be stopped and started again (same ports, same storage) to play outages.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePorts } from "./platform.ts";

export interface NatsClusterOptions {
  /** Default 3. */
  nodes?: number;
  host?: string;
  /** Where nats-server's own log lines go. Default: dropped. */
  log?: (line: string) => void;
  /** Give up waiting for the cluster (JetStream meta leader elected) after this long. Default 30 s. */
  readyTimeoutMs?: number;
}

export interface NatsCluster {
  /** Client URL of each node. */
  readonly urls: readonly string[];
  /** The nodes' client URLs comma-separated (a NATS_URL for the services). */
  readonly url: string;
  readonly storeDir: string;
  /** SIGTERM to one node; resolves when it has exited. */
  stopNode(index: number): Promise<void>;
  /**
   * Starts a stopped node again and waits for its JetStream to be healthy (every stream and consumer it holds current
   * again), at most `readyTimeoutMs` (default: the cluster's).
   */
  startNode(index: number, readyTimeoutMs?: number): Promise<void>;
  /** Whether the node's process runs. */
  running(index: number): boolean;
  /** Stops every node and removes the storage. Idempotent. */
  stop(): Promise<void>;
}

/** Whether the nats-server binary (NATS_SERVER_BIN or on PATH) runs. */
export function natsServerAvailable(): boolean {
  const res = spawnSync(process.env.NATS_SERVER_BIN || "nats-server", ["--version"], { stdio: "ignore" });
  return res.status === 0;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export async function startNatsCluster(options: NatsClusterOptions = {}): Promise<NatsCluster> {
  const count = options.nodes ?? 3;
  const host = options.host ?? "127.0.0.1";
  const bin = process.env.NATS_SERVER_BIN || "nats-server";
  const readyTimeoutMs = options.readyTimeoutMs ?? 30_000;
  const ports = await freePorts(count * 3, host);
  const client = (i: number) => ports[i * 3]!;
  const route = (i: number) => ports[i * 3 + 1]!;
  const monitor = (i: number) => ports[i * 3 + 2]!;
  const storeDir = mkdtempSync(join(tmpdir(), "vestibule-nats-"));
  const procs: Array<ChildProcess | undefined> = Array.from({ length: count }, () => undefined);

  const args = (i: number): string[] => [
    "--addr", host,
    "--port", String(client(i)),
    "--http_port", String(monitor(i)),
    "--jetstream",
    "--store_dir", join(storeDir, `n${i + 1}`),
    "--server_name", `vestibule-n${i + 1}`,
    ...(count > 1
      ? [
          "--cluster_name", "vestibule",
          "--cluster", `nats://${host}:${route(i)}`,
          "--routes", Array.from({ length: count }, (_, j) => j).filter((j) => j !== i).map((j) => `nats://${host}:${route(j)}`).join(","),
        ]
      : []),
  ];

  const spawnNode = (i: number): void => {
    const proc = spawn(bin, args(i), { stdio: ["ignore", "ignore", "pipe"] });
    procs[i] = proc;
    proc.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
      for (const line of chunk.split("\n")) if (line.trim()) options.log?.(`nats-n${i + 1} | ${line}`);
    });
    proc.once("exit", () => {
      if (procs[i] === proc) procs[i] = undefined;
    });
    proc.once("error", (err) => options.log?.(`nats-n${i + 1} | could not start ${bin}: ${err.message}`));
  };

  /** Healthy = the node serves JetStream as a current member of the cluster (GET /healthz, nats-server ≥ 2.7). */
  const waitHealthy = async (i: number, timeoutMs = readyTimeoutMs): Promise<void> => {
    const deadline = Date.now() + timeoutMs;
    let last = "no answer";
    while (Date.now() < deadline) {
      if (!procs[i]) throw new Error(`nats node ${i + 1} exited before it was ready`);
      try {
        const res = await fetch(`http://${host}:${monitor(i)}/healthz`, { signal: AbortSignal.timeout(1_000) });
        last = `${res.status} ${await res.text()}`;
        if (res.ok) return;
      } catch (err) {
        last = (err as Error).message;
      }
      await sleep(200);
    }
    throw new Error(`nats node ${i + 1} not healthy after ${timeoutMs} ms: ${last}`);
  };

  const stopNode = async (i: number, signal: NodeJS.Signals = "SIGTERM"): Promise<void> => {
    const proc = procs[i];
    if (!proc) return;
    const exited = once(proc, "exit");
    proc.kill(signal);
    const done = await Promise.race([exited.then(() => true), sleep(10_000).then(() => false)]);
    if (!done) {
      proc.kill("SIGKILL");
      await exited;
    }
  };

  const removeStorage = (): void => rmSync(storeDir, { recursive: true, force: true, maxRetries: 5 });
  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopped ??= (async () => {
      await Promise.all(procs.map((_, i) => stopNode(i)));
      removeStorage();
      // Only now: a process.exit() while the nodes stop (a second Ctrl-C) still kills them and removes the storage.
      process.removeListener("exit", onExit);
    })();
    return stopped;
  };
  /** Last resort when the process exits without a finished stop(): no waiting is possible in an exit handler. */
  const onExit = (): void => {
    for (const p of procs) p?.kill("SIGKILL");
    // A node that has not died yet may still create a file: removal retries (ENOTEMPTY) for a moment.
    removeStorage();
  };
  process.on("exit", onExit);

  try {
    for (let i = 0; i < count; i++) spawnNode(i);
    await Promise.all(procs.map((_, i) => waitHealthy(i)));
  } catch (err) {
    await stop();
    throw err;
  }
  const urls = Array.from({ length: count }, (_, i) => `nats://${host}:${client(i)}`);
  return {
    urls,
    url: urls.join(","),
    storeDir,
    stopNode: (i) => stopNode(i),
    async startNode(i, timeoutMs) {
      if (procs[i]) return;
      spawnNode(i);
      await waitHealthy(i, timeoutMs);
    },
    running: (i) => procs[i] !== undefined,
    stop,
  };
}
