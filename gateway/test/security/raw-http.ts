import http from "node:http";
import type { Answer } from "./route-catalogue.ts";

/**
 * A request exactly as written: raw path (already encoded, or deliberately not), header values given as arrays are
 * sent as repeated header lines, the body as bytes. `fetch` cannot send duplicate headers or invalid UTF-8 bodies.
 */
export interface RawRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string | string[]>;
  readonly body?: Buffer;
}

/** Keep-alive HTTP/1.1 client for one base URL, `concurrency` sockets at most. */
export function rawClient(baseUrl: string, concurrency: number) {
  const url = new URL(baseUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });

  function once(req: RawRequest, timeoutMs: number): Promise<Answer & { reused: boolean }> {
    return new Promise((resolve, reject) => {
      const started = performance.now();
      const headers = { ...req.headers, ...(req.body ? { "content-length": String(req.body.length) } : {}) };
      const r = http.request({ host: url.hostname, port: url.port, method: req.method, path: req.path, headers, agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("error", reject);
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString("utf8"), ms: performance.now() - started, reused: r.reusedSocket }),
        );
      });
      r.setTimeout(timeoutMs, () => r.destroy(new Error(`no answer within ${timeoutMs} ms`)));
      r.on("error", (err) => reject(Object.assign(err, { reused: r.reusedSocket })));
      r.end(req.body);
    });
  }

  return {
    /** Sends one request; a keep-alive socket the server closed meanwhile is retried once on a fresh one. */
    async send(req: RawRequest, timeoutMs: number): Promise<Answer> {
      try {
        return await once(req, timeoutMs);
      } catch (err) {
        const e = err as NodeJS.ErrnoException & { reused?: boolean };
        if (e.reused && (e.code === "ECONNRESET" || e.code === "EPIPE")) return once(req, timeoutMs);
        throw err;
      }
    },
    close: () => agent.destroy(),
  };
}
