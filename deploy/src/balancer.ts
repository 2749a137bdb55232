/**
 * A small HTTP balancer for the gateways of `npm run start:cluster` (loopback, development and fault tests; in
 * production a real load balancer does this). Round-robin over the backends whose `GET /health` answered 200 at the
 * last probe (every `probeMs`), so a draining gateway (SIGTERM: /health 503) gets no new requests while it finishes
 * the ones it has. A request moves to another backend only when that cannot run it twice: a GET or HEAD that failed
 * before its answer started, or any request the backend cannot have seen (connection refused, or a kept-alive
 * connection the backend closed before the request went out: Node's documented `reusedSocket` + ECONNRESET case).
 * Anything else that fails before an answer is a 502. Adds X-Forwarded-For (the gateways run with
 * VESTIBULE_TRUST_PROXY=1).
 */
import http from "node:http";
import { once } from "node:events";
import type { AddressInfo } from "node:net";

export interface BalancerOptions {
  readonly backends: readonly string[];
  readonly port?: number;
  readonly host?: string;
  /** Health probe interval. Default 250 ms. */
  readonly probeMs?: number;
}

export interface Balancer {
  readonly url: string;
  /** Backends answering /health 200 at the last probe. */
  healthy(): readonly string[];
  close(): Promise<void>;
}

/** Methods HTTP defines as safe: a GET or HEAD cut off before its answer is sent to another gateway. */
const safeMethod = (method: string | undefined): boolean => method === "GET" || method === "HEAD";

const HOP_BY_HOP = new Set(["connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "te", "trailer"]);

export async function startBalancer(options: BalancerOptions): Promise<Balancer> {
  const backends = options.backends.map((url) => ({
    url: new URL(url),
    agent: new http.Agent({ keepAlive: true, maxSockets: 256 }),
    up: true,
  }));
  let next = 0;
  const probeMs = options.probeMs ?? 250;

  const probe = async (): Promise<void> => {
    await Promise.all(
      backends.map(async (b) => {
        try {
          const res = await fetch(new URL("/health", b.url), { signal: AbortSignal.timeout(1_000) });
          await res.arrayBuffer();
          b.up = res.status === 200;
        } catch {
          b.up = false;
        }
      }),
    );
  };
  await probe();
  let probing = true;
  const loop = (async () => {
    while (probing) {
      await new Promise((r) => setTimeout(r, probeMs));
      if (probing) await probe();
    }
  })();

  /** Healthy backends from the round-robin position, then the others (better a try than a certain 502). */
  const order = (): typeof backends => {
    const start = next;
    next = (next + 1) % backends.length;
    const rotated = backends.map((_, i) => backends[(start + i) % backends.length]!);
    return [...rotated.filter((b) => b.up), ...rotated.filter((b) => !b.up)];
  };

  const forward = (b: (typeof backends)[number], req: http.IncomingMessage, body: Buffer): Promise<http.IncomingMessage> =>
    new Promise((resolve, reject) => {
      const headers: http.OutgoingHttpHeaders = {};
      for (const [k, v] of Object.entries(req.headers)) if (!HOP_BY_HOP.has(k) && v !== undefined) headers[k] = v;
      const peer = req.socket.remoteAddress ?? "";
      headers["x-forwarded-for"] = req.headers["x-forwarded-for"] ? `${String(req.headers["x-forwarded-for"])}, ${peer}` : peer;
      headers["content-length"] = String(body.length);
      const out = http.request({ host: b.url.hostname, port: b.url.port, method: req.method, path: req.url, headers, agent: b.agent }, resolve);
      const safe = safeMethod(req.method);
      out.on("error", (err: NodeJS.ErrnoException) =>
        reject(Object.assign(err, { retryable: safe || err.code === "ECONNREFUSED" || (out.reusedSocket && err.code === "ECONNRESET") })),
      );
      out.end(body);
    });

  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    try {
      for await (const chunk of req) chunks.push(chunk as Buffer);
    } catch {
      res.destroy();
      return;
    }
    const body = Buffer.concat(chunks);
    let lastError: Error | undefined;
    for (const b of order()) {
      let upstream: http.IncomingMessage;
      try {
        upstream = await forward(b, req, body);
      } catch (err) {
        lastError = err as Error;
        if ((err as NodeJS.ErrnoException).code === "ECONNREFUSED") b.up = false;
        if ((err as { retryable?: boolean }).retryable) continue;
        break;
      }
      const headers: http.OutgoingHttpHeaders = {};
      for (const [k, v] of Object.entries(upstream.headers)) if (!HOP_BY_HOP.has(k) && v !== undefined) headers[k] = v;
      res.writeHead(upstream.statusCode ?? 502, headers);
      upstream.pipe(res);
      upstream.on("error", () => res.destroy());
      return;
    }
    res.writeHead(502, { "content-type": "text/plain" }).end(`balancer: no gateway answered (${lastError?.message ?? "none healthy"})`);
  });
  server.keepAliveTimeout = 30_000;
  server.listen(options.port ?? 0, options.host ?? "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host ?? "127.0.0.1"}:${port}`,
    healthy: () => backends.filter((b) => b.up).map((b) => b.url.origin),
    async close() {
      probing = false;
      await loop;
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      for (const b of backends) b.agent.destroy();
    },
  };
}
