/**
 * A customer's page using the published `@stackframe/js` 2.8.108 browser build (bundled here with esbuild from the
 * package the repository installs, as an app's bundler would), served from its own origin on a free port, so every
 * call the SDK makes by itself crosses to the gateway with CORS, as in production.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const HERE = dirname(fileURLToPath(import.meta.url));

export interface SdkPageConfig {
  readonly baseUrl: string;
  readonly projectId: string;
  readonly publishableClientKey: string;
}

export interface SdkPageServer {
  /** The page's origin, e.g. http://127.0.0.1:43121 (pages: `/` and `/second`). */
  readonly url: string;
  /** Version of the bundled SDK package. */
  readonly sdkVersion: string;
  close(): Promise<void>;
}

const ENTRY = `
import { StackClientApp } from "@stackframe/js";
const config = window.__SDK_PAGE_CONFIG__;
window.__stackApp = new StackClientApp({ ...config, tokenStore: "cookie" });
`;

/** Bundles the SDK for the browser (IIFE) and returns the script. */
async function bundleSdk(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "vestibule-sdk-page-"));
  try {
    const entry = join(HERE, ".sdk-page-entry.js");
    writeFileSync(entry, ENTRY);
    try {
      const out = join(dir, "sdk.js");
      await build({
        entryPoints: [entry],
        bundle: true,
        format: "iife",
        platform: "browser",
        target: "es2022",
        outfile: out,
        logLevel: "silent",
        define: { "process.env.NODE_ENV": '"production"' },
      });
      return readFileSync(out, "utf8");
    } finally {
      rmSync(entry, { force: true });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function page(title: string, config: SdkPageConfig): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${title}</title></head>
<body>
  <h1>${title}</h1>
  <nav><a href="/">Home</a> <a href="/second">Second page</a></nav>
  <button id="buy" type="button">Buy</button>
  <script>window.__SDK_PAGE_CONFIG__ = ${JSON.stringify(config)};</script>
  <script src="/sdk.js"></script>
</body></html>`;
}

export async function startSdkPage(config: SdkPageConfig): Promise<SdkPageServer> {
  const script = await bundleSdk();
  const sdkVersion = (JSON.parse(readFileSync(join(HERE, "..", "..", "..", "node_modules", "@stackframe", "js", "package.json"), "utf8")) as { version: string }).version;
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    if (path === "/sdk.js") {
      res.writeHead(200, { "content-type": "text/javascript; charset=utf-8" });
      res.end(script);
    } else if (path === "/" || path === "/second") {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(page(path === "/" ? "Shop" : "Second page", config));
    } else if (path === "/favicon.ico") {
      res.writeHead(204);
      res.end();
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    sdkVersion,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
