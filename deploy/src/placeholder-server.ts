/** Serves frontends/placeholder/index.html until the real frontends exist. */
import { readFileSync } from "node:fs";
import http from "node:http";
import { once } from "node:events";
import { inCheckout } from "./paths.ts";
import { handleDevMailbox, type DevMailboxHttpOptions } from "./dev-mailbox-http.ts";

export interface PlaceholderServer {
  readonly port: number;
  close(): Promise<void>;
}

export interface PlaceholderOptions {
  port: number;
  host: string;
  /** The gateway's public URL; replaces the default http://localhost:8102 in the page. */
  publicUrl: string;
  /** Development only: serve the dev mailbox at /dev/mailbox (JSON) and /dev/mailbox/view (HTML). */
  mailbox?: DevMailboxHttpOptions;
}

export async function startPlaceholderServer(options: PlaceholderOptions): Promise<PlaceholderServer> {
  const page = readFileSync(inCheckout("frontends", "placeholder", "index.html"), "utf8").replaceAll(
    "http://localhost:8102",
    options.publicUrl,
  );
  const body = Buffer.from(page, "utf8");
  const server = http.createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0]!;
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405, { allow: "GET, HEAD", "content-type": "text/plain; charset=utf-8" }).end("Method Not Allowed\n");
      return;
    }
    if (options.mailbox && path.startsWith("/dev/mailbox")) {
      handleDevMailbox(req, res, options.mailbox).then(
        (handled) => void (handled || res.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end("Not Found\n")),
        () => void res.writeHead(500, { "content-type": "text/plain; charset=utf-8" }).end("Internal error\n"),
      );
      return;
    }
    if (path === "/health") {
      res.writeHead(200, { "content-type": "text/plain; charset=utf-8" }).end("ok\n");
      return;
    }
    if (path === "/" || path === "/index.html" || path === "/handler" || path.startsWith("/handler/")) {
      res.writeHead(200, {
        "content-type": "text/html; charset=utf-8",
        "content-length": body.length,
        "cache-control": "no-cache",
        "x-content-type-options": "nosniff",
      });
      res.end(req.method === "HEAD" ? undefined : body);
      return;
    }
    res.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end("Not Found\n");
  });
  server.listen(options.port, options.host);
  await once(server, "listening");
  const port = (server.address() as { port: number }).port;
  return {
    port,
    close: () =>
      new Promise<void>((resolveClose) => {
        server.close(() => resolveClose());
        server.closeAllConnections();
      }),
  };
}
