/**
 * The HTTP server of the built frontends: each app's dist/ under its mount path (apps.ts), client-side routes
 * answered with the app's index.html, and the two run-time documents every app reads at start:
 *
 *  - `/config.json`: the gateway's public URL and the project ids/publishable keys (RuntimeConfig), injected here at
 *    run time so one build serves every deployment;
 *  - `/remotes.json`: the runtime manifest: where each remote's mf-manifest.json is (RuntimeManifest).
 *
 * Remote assets are sent with `access-control-allow-origin: *` so a host on another origin (a customer's app) can
 * load them. Hashed files are cached for a year; HTML, manifests and remoteEntry.js are revalidated every time.
 * Security headers (CSP of the pages, nosniff, referrer policy, HSTS in production): security-headers.ts.
 */
import { createReadStream, existsSync, readFileSync, statSync } from "node:fs";
import http from "node:http";
import { once } from "node:events";
import { extname, join, normalize, sep } from "node:path";
import { FRONTEND_APPS, defaultManifest, type FrontendApp, type RuntimeConfig, type RuntimeManifest } from "./apps.ts";
import { FRONTENDS_DIR } from "./build.ts";
import { BASE_SECURITY_HEADERS, HSTS_VALUE, pageSecurityHeaders, type PageSecurityOptions } from "./security-headers.ts";

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".map": "application/json; charset=utf-8",
  ".txt": "text/plain; charset=utf-8",
};

export type ExtraRoute = (req: http.IncomingMessage, res: http.ServerResponse, path: string) => Promise<boolean> | boolean;

export interface FrontendsServerOptions {
  readonly port: number;
  readonly host: string;
  /** Run-time configuration; `/config.json` answers 503 until it is known. */
  readonly config?: RuntimeConfig;
  /** Default: every remote served by this server (defaultManifest()). */
  readonly manifest?: RuntimeManifest;
  /** Only these apps (default all). */
  readonly apps?: readonly FrontendApp[];
  /** Where the app folders are (default the checkout's frontends/). */
  readonly frontendsDir?: string;
  /** The build folder served inside each app's folder (default `dist`; the development server's is `dist-dev`). */
  readonly distDir?: string;
  /** Extra JSON documents by path (e.g. a standalone remote's /dev-config.json in development). */
  readonly documents?: Readonly<Record<string, unknown>>;
  /** Tried first; return true when the request was answered. */
  readonly extraRoutes?: readonly ExtraRoute[];
  /**
   * Production: HSTS on every answer, and the pages' CSP allows images over https only. Default: the run-time
   * config's `mode`.
   */
  readonly production?: boolean;
}

export interface FrontendsServer {
  readonly port: number;
  readonly url: string;
  setConfig(config: RuntimeConfig): void;
  setManifest(manifest: RuntimeManifest): void;
  close(): Promise<void>;
}

function sendJson(res: http.ServerResponse, status: number, value: unknown, head: boolean): void {
  const body = Buffer.from(JSON.stringify(value));
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": body.length,
    "cache-control": "no-cache",
    "access-control-allow-origin": "*",
  });
  res.end(head ? undefined : body);
}

/** HTML pages by path, with the modification time they were read at (their inline scripts' hashes go into the CSP). */
const pages = new Map<string, { mtimeMs: number; html: string }>();

function pageHtml(file: string): string {
  const mtimeMs = statSync(file).mtimeMs;
  const cached = pages.get(file);
  if (cached && cached.mtimeMs === mtimeMs) return cached.html;
  const html = readFileSync(file, "utf8");
  pages.set(file, { mtimeMs, html });
  return html;
}

type PageOptions = Omit<PageSecurityOptions, "html">;

function sendFile(res: http.ServerResponse, file: string, head: boolean, page: PageOptions): void {
  const ext = extname(file);
  const name = file.slice(file.lastIndexOf(sep) + 1);
  const hashed = /\.[0-9a-f]{8}\.js$/.test(name);
  res.writeHead(200, {
    ...(ext === ".html" ? pageSecurityHeaders({ html: pageHtml(file), ...page }) : {}),
    "content-type": TYPES[ext] ?? "application/octet-stream",
    "content-length": statSync(file).size,
    "cache-control": hashed ? "public, max-age=31536000, immutable" : "no-cache",
    "access-control-allow-origin": "*",
  });
  if (head) res.end();
  else createReadStream(file).pipe(res);
}

/** A file inside `root` for the URL path, or null (never outside root). */
function fileUnder(root: string, rel: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(rel);
  } catch {
    return null;
  }
  if (decoded.includes("\0")) return null;
  const full = normalize(join(root, decoded));
  if (full !== root && !full.startsWith(root + sep)) return null;
  return existsSync(full) && statSync(full).isFile() ? full : null;
}

/** The Vestibule mark: a door in the accent colour, readable on light and dark tabs. */
export const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#4f46e5"/><path d="M10 26V7.5a1.5 1.5 0 0 1 1.5-1.5h9A1.5 1.5 0 0 1 22 7.5V26" fill="none" stroke="#fff" stroke-width="2.5" stroke-linecap="round"/><circle cx="18.5" cy="16.5" r="1.6" fill="#fff"/><path d="M7 26h18" stroke="#fff" stroke-width="2.5" stroke-linecap="round"/></svg>`;

export async function startFrontendsServer(options: FrontendsServerOptions): Promise<FrontendsServer> {
  const frontendsDir = options.frontendsDir ?? FRONTENDS_DIR;
  const apps = [...(options.apps ?? FRONTEND_APPS)].sort((a, b) => b.mountPath.length - a.mountPath.length);
  let config = options.config;
  let manifest = options.manifest ?? defaultManifest();
  // Servers named by the extra documents (a standalone area's dev-config.json: its gateway, and the platform's
  // frontends server with the dev mailbox): its pages call them.
  const documentApiUrls = Object.values(options.documents ?? {}).flatMap((d) => {
    const doc = d as { apiUrl?: unknown; frontendsOrigin?: unknown } | null;
    return [doc?.apiUrl, doc?.frontendsOrigin].filter((u): u is string => typeof u === "string");
  });

  const server = http.createServer((req, res) => {
    // On every answer, the extra routes' included (they may set more, e.g. their own CSP).
    for (const [name, value] of Object.entries(BASE_SECURITY_HEADERS)) res.setHeader(name, value);
    const production = options.production ?? config?.mode === "production";
    if (production) res.setHeader("strict-transport-security", HSTS_VALUE);
    void (async () => {
      const path = (req.url ?? "/").split("?")[0]!.split("#")[0]!;
      const head = req.method === "HEAD";
      for (const route of options.extraRoutes ?? []) if (await route(req, res, path)) return;
      if (req.method === "OPTIONS") {
        res.writeHead(204, { "access-control-allow-origin": "*", "access-control-allow-methods": "GET, HEAD", "access-control-max-age": "600" }).end();
        return;
      }
      if (req.method !== "GET" && !head) {
        res.writeHead(405, { allow: "GET, HEAD", "content-type": "text/plain; charset=utf-8" }).end("Method Not Allowed\n");
        return;
      }
      if (path === "/health") {
        res.writeHead(200, { "content-type": "text/plain; charset=utf-8" }).end("ok\n");
        return;
      }
      if (path === "/config.json") {
        if (!config) sendJson(res, 503, { error: "The platform is still starting; try again in a moment." }, head);
        else sendJson(res, 200, config, head);
        return;
      }
      if (path === "/remotes.json") return sendJson(res, 200, manifest, head);
      // The icon of every page (browsers also ask for /favicon.ico on their own; it answers the same SVG).
      if (path === "/favicon.svg" || path === "/favicon.ico") {
        res.writeHead(200, { "content-type": "image/svg+xml", "cache-control": "public, max-age=86400", "content-length": Buffer.byteLength(FAVICON_SVG) });
        res.end(head ? undefined : FAVICON_SVG);
        return;
      }
      const doc = options.documents?.[path];
      if (doc !== undefined) return sendJson(res, 200, doc, head);

      const mountPath = (p: string) => (p.endsWith("/") ? p : `${p}/`);
      const app = apps.find((a) => mountPath(path).startsWith(a.mountPath));
      if (!app) {
        res.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end("Not Found\n");
        return;
      }
      const root = join(frontendsDir, app.dir, options.distDir ?? "dist");
      const rel = path.slice(app.mountPath.length - 1);
      const file = rel === "/" || rel === "" ? null : fileUnder(root, rel);
      const page: PageOptions = {
        apiUrl: config?.apiUrl,
        production,
        remoteEntries: [manifest.handler.entry, ...manifest.areas.map((a) => a.entry)],
        stripeJsUrl: config?.stripe?.jsUrl,
        otherApiUrls: documentApiUrls,
      };
      if (file && !file.endsWith(".build-stamp")) return sendFile(res, file, head, page);
      const index = join(root, "index.html");
      // A missing asset (has an extension) is a 404; anything else is a client-side route of the app.
      if (app.spa && !/\.[a-z0-9]{1,5}$/i.test(rel) && existsSync(index)) return sendFile(res, index, head, page);
      if (!existsSync(index)) {
        res.writeHead(503, { "content-type": "text/plain; charset=utf-8" }).end(`${app.dir} is not built (npm run build:frontends)\n`);
        return;
      }
      res.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end("Not Found\n");
    })().catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain; charset=utf-8" });
      res.end(`Internal error: ${(err as Error).message}\n`);
    });
  });
  server.listen(options.port, options.host);
  await once(server, "listening");
  const port = (server.address() as { port: number }).port;
  const host = options.host === "0.0.0.0" || options.host === "::" ? "127.0.0.1" : options.host;
  return {
    port,
    url: `http://${host}:${port}`,
    setConfig: (c) => void (config = c),
    setManifest: (m) => void (manifest = m),
    close: () =>
      new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections();
      }),
  };
}
