/** Builds the test page with esbuild and serves it on a free port (every path gets the page, so handler redirects land). */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

export interface TestPageServer {
  readonly url: string;
  close(): Promise<void>;
}

export async function serveTestPage(): Promise<TestPageServer> {
  const result = await build({
    entryPoints: [fileURLToPath(new URL("./page.tsx", import.meta.url))],
    bundle: true,
    write: false,
    format: "esm",
    platform: "browser",
    target: "es2022",
    jsx: "automatic",
    conditions: ["source"],
    define: { "process.env.NODE_ENV": '"development"' },
    sourcemap: "inline",
    logLevel: "silent",
  });
  const js = result.outputFiles[0]!.contents;
  const html = `<!doctype html><html><head><meta charset="utf-8"><title>Vestibule user menu</title></head><body style="margin:0"><div id="root"></div><script type="module" src="/page.js"></script></body></html>`;
  const server: Server = createServer((req, res) => {
    if (req.url === "/page.js") {
      res.writeHead(200, { "content-type": "text/javascript" });
      res.end(js);
    } else if (req.url === "/favicon.ico") {
      res.writeHead(204).end();
    } else {
      res.writeHead(200, { "content-type": "text/html" });
      res.end(html);
    }
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, close: () => new Promise((r) => server.close(() => r())) };
}
