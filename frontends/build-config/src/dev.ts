/**
 * Runs one frontend alone in development: rebuilds it on every change (rspack watch, development mode) and serves it
 * on its own port, against the platform `npm start` runs (its keys from .vestibule/dev.json).
 *
 *   npm run dev -w @vestibule/dashboard-users          (every app has this script; or, from the checkout:)
 *   node --import tsx frontends/build-config/src/dev.ts dashboard-users [--port 8120] [--dev <dev.json>]
 *                                                      [--frontends http://localhost:8101] [--host 127.0.0.1]
 *
 * - A dashboard area opens at http://localhost:<port>/remotes/dashboard-<area>/ in its standalone harness, with the
 *   demo project's keys (`dev-config.json`, served only by this development server).
 * - The handler pages open at /handler/sign-in (demo project); the shell at / (the dashboard, signing in to
 *   `internal`); the example host at /example/.
 * - A host (shell, example host) loads every remote it does not build itself from the frontends server of
 *   `npm start` (--frontends), through the runtime manifest this server serves: no remote URL is in a build.
 *
 * The watch build writes the app's dist-dev/ (development build, unminified, with source maps) and this server serves
 * it from there: the production build in dist/, which `npm start` (and every test platform) serves, is never touched,
 * so developing one app does not break the running platform's pages.
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { FRONTEND_APPS, appByDir, defaultManifest, type FrontendApp, type RuntimeConfig, type RuntimeManifest } from "./apps.ts";
import { FRONTENDS_DIR } from "./build.ts";
import { startFrontendsServer, type FrontendsServer } from "./static-server.ts";

/** The development build's folder inside the app's folder (the production build is in dist/). */
export const DEV_DIST_DIR = "dist-dev";

export interface DevOptions {
  readonly app: FrontendApp;
  readonly port: number;
  readonly host: string;
  /** The platform's keys (`.vestibule/dev.json` of npm start). */
  readonly devFile: string;
  /** Origin of the frontends server the other remotes come from. */
  readonly frontendsOrigin: string;
  readonly log?: (line: string) => void;
}

interface DevFile {
  readonly gateway_url: string;
  readonly projects: Record<"internal" | "demo", { project_id: string; publishable_client_key: string; secret_server_key: string; super_secret_admin_key: string }>;
}

export function readDevFile(path: string): DevFile {
  if (!existsSync(path)) throw new Error(`${path} does not exist: start the platform first (npm start writes it), or pass --dev <path>`);
  const file = JSON.parse(readFileSync(path, "utf8")) as Partial<DevFile>;
  if (!file.gateway_url || !file.projects?.demo || !file.projects.internal) throw new Error(`${path} has no gateway_url and project keys`);
  return file as DevFile;
}

/** The run-time documents of the development server: config, manifest, and the standalone areas' dev-config.json. */
export function devDocuments(app: FrontendApp, dev: DevFile, frontendsOrigin: string) {
  const { internal, demo } = dev.projects;
  const config: RuntimeConfig = {
    apiUrl: dev.gateway_url,
    internalProjectId: internal.project_id,
    internalPublishableClientKey: internal.publishable_client_key,
    handlerProjectId: demo.project_id,
    handlerPublishableClientKey: demo.publishable_client_key,
    mode: "development",
  };
  // The app being developed comes from here (same origin), every other remote from the platform's frontends server.
  const local = defaultManifest();
  const remote = (r: RuntimeManifest["handler"]) => (r.name === app.mfName ? r : { ...r, entry: new URL(r.entry, frontendsOrigin).toString() });
  const manifest: RuntimeManifest = { handler: remote(local.handler), areas: local.areas.map(remote) };
  const documents: Record<string, unknown> = {};
  if (app.area) {
    documents[`${app.mountPath}dev-config.json`] = {
      apiUrl: dev.gateway_url,
      projectId: demo.project_id,
      superSecretAdminKey: demo.super_secret_admin_key,
      secretServerKey: demo.secret_server_key,
      frontendsOrigin: new URL(frontendsOrigin).origin,
      mode: "development",
    };
  }
  return { config, manifest, documents };
}

export interface DevServer {
  readonly server: FrontendsServer;
  /** Resolves after the first build (rejects when it failed). */
  readonly firstBuild: Promise<void>;
  stop(): Promise<void>;
}

export async function startDev(options: DevOptions): Promise<DevServer> {
  const log = options.log ?? ((line: string) => void process.stdout.write(`${line}\n`));
  const dev = readDevFile(options.devFile);
  const { config, manifest, documents } = devDocuments(options.app, dev, options.frontendsOrigin);
  // A plain node child (no TypeScript loader): see federated-config.mjs.
  const child = spawn(process.execPath, [join(dirname(fileURLToPath(import.meta.url)), "compile.mjs"), JSON.stringify({ apps: [options.app], frontendsDir: FRONTENDS_DIR, mode: "development", watch: true, distDir: DEV_DIST_DIR })], {
    cwd: resolve(FRONTENDS_DIR, ".."),
    env: { ...process.env, NODE_OPTIONS: "" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let settle: { resolve: () => void; reject: (e: Error) => void } | undefined;
  const firstBuild = new Promise<void>((res, rej) => void (settle = { resolve: res, reject: rej }));
  let failure: string[] | null = null;
  createInterface({ input: child.stdout! }).on("line", (line) => {
    if (line.startsWith("built ")) {
      failure = null;
      log(`${options.app.dir}: built in ${line.slice(6)} ms; reload the page`);
      settle?.resolve();
      settle = undefined;
    } else if (line === "failed") {
      failure = [];
    } else if (failure) {
      failure.push(line);
      log(line);
      settle?.reject(new Error(`${options.app.dir} does not build:\n${failure.join("\n")}`));
      settle = undefined;
    }
  });
  child.on("exit", (code) => {
    settle?.reject(new Error(`the ${options.app.dir} build stopped (exit ${code})`));
    settle = undefined;
  });
  const server = await startFrontendsServer({ port: options.port, host: options.host, apps: [options.app], distDir: DEV_DIST_DIR, config, manifest, documents });
  return {
    server,
    firstBuild,
    stop: async () => {
      child.kill("SIGTERM");
      await server.close();
    },
  };
}

/** Where the app's page opens on the development server. */
export function devPagePath(app: FrontendApp): string {
  if (app.dir === "handler") return "/handler/sign-in";
  return app.mountPath;
}

function parseArgs(argv: string[]): DevOptions {
  const [dir, ...rest] = argv;
  if (!dir || dir.startsWith("-")) throw new Error(`usage: dev.ts <app> [--port N] [--host H] [--dev dev.json] [--frontends URL]; apps: ${FRONTEND_APPS.map((a) => a.dir).join(", ")}`);
  const flag = (name: string) => {
    const i = rest.indexOf(name);
    return i >= 0 ? rest[i + 1] : undefined;
  };
  const app = appByDir(dir);
  return {
    app,
    port: Number(flag("--port") ?? process.env.PORT ?? 8120 + FRONTEND_APPS.indexOf(app)),
    host: flag("--host") ?? "127.0.0.1",
    devFile: resolve(flag("--dev") ?? join(FRONTENDS_DIR, "..", ".vestibule", "dev.json")),
    frontendsOrigin: flag("--frontends") ?? "http://localhost:8101",
  };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  let options: DevOptions;
  try {
    options = parseArgs(process.argv.slice(2));
  } catch (err) {
    console.error((err as Error).message);
    process.exit(2);
  }
  startDev(options).then(
    async (dev) => {
      const stop = () => void dev.stop().then(() => process.exit(0));
      process.on("SIGINT", stop);
      process.on("SIGTERM", stop);
      await dev.firstBuild.catch(() => undefined);
      console.log(`${options.app.dir}: http://localhost:${dev.server.port}${devPagePath(options.app)} (other remotes from ${options.frontendsOrigin}; Ctrl-C stops)`);
    },
    (err: Error) => {
      console.error(err.message);
      process.exit(1);
    },
  );
}
