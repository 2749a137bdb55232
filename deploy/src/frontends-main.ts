/**
 * The frontends server in production: serves the built frontends (`npm run build:frontends` in the image, never at
 * start) with the run-time documents of this deployment, from the environment:
 *
 * | variable | meaning |
 * |---|---|
 * | `VESTIBULE_PUBLIC_URL` | public URL of the gateway, as browsers reach it (required) |
 * | `VESTIBULE_DASHBOARD_PUBLISHABLE_CLIENT_KEY` | publishable client key of the `internal` project (the dashboard's sign-in; required) |
 * | `VESTIBULE_HANDLER_PROJECT_ID`, `VESTIBULE_HANDLER_PUBLISHABLE_CLIENT_KEY` | the project whose hosted pages /handler serves (default: `internal` with the key above) |
 * | `VESTIBULE_REMOTES_MANIFEST` | optional path of a JSON runtime manifest (where each remote's mf-manifest.json is, e.g. on a CDN); default: every remote from this server |
 * | `VESTIBULE_MODE` | `production` (default here) or `development` |
 * | `PORT`, `HOST` | default 8101, 127.0.0.1 |
 *
 *   node --import tsx deploy/src/frontends-main.ts
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { FRONTEND_APPS, type RuntimeConfig, type RuntimeManifest } from "@vestibule/build-config/apps";
import { FRONTENDS_DIR } from "@vestibule/build-config/build";
import { startFrontendsServer } from "@vestibule/build-config/static-server";

export interface FrontendsEnv {
  readonly port: number;
  readonly host: string;
  readonly config: RuntimeConfig;
  readonly manifest?: RuntimeManifest;
}

/** Reads the environment; throws one error listing every problem. */
export function frontendsEnv(env: NodeJS.ProcessEnv): FrontendsEnv {
  const problems: string[] = [];
  const publicUrl = env.VESTIBULE_PUBLIC_URL?.replace(/\/+$/, "");
  if (!publicUrl || !/^https?:\/\//.test(publicUrl)) problems.push("VESTIBULE_PUBLIC_URL must be the gateway's public http(s) URL");
  const dashboardKey = env.VESTIBULE_DASHBOARD_PUBLISHABLE_CLIENT_KEY;
  if (!dashboardKey) problems.push("VESTIBULE_DASHBOARD_PUBLISHABLE_CLIENT_KEY must be a publishable client key of the internal project");
  const handlerProject = env.VESTIBULE_HANDLER_PROJECT_ID || "internal";
  const handlerKey = env.VESTIBULE_HANDLER_PUBLISHABLE_CLIENT_KEY || (handlerProject === "internal" ? dashboardKey : undefined);
  if (!handlerKey && handlerProject !== "internal") problems.push("VESTIBULE_HANDLER_PUBLISHABLE_CLIENT_KEY is needed with VESTIBULE_HANDLER_PROJECT_ID");
  const mode = env.VESTIBULE_MODE ?? "production";
  if (mode !== "production" && mode !== "development") problems.push("VESTIBULE_MODE must be production or development");
  const port = Number(env.PORT ?? 8101);
  if (!Number.isInteger(port) || port < 0 || port > 65535) problems.push("PORT must be a port number");
  let manifest: RuntimeManifest | undefined;
  if (env.VESTIBULE_REMOTES_MANIFEST) {
    try {
      manifest = JSON.parse(readFileSync(env.VESTIBULE_REMOTES_MANIFEST, "utf8")) as RuntimeManifest;
      if (!manifest.handler?.entry || !Array.isArray(manifest.areas)) throw new Error("needs handler.entry and areas[]");
    } catch (err) {
      problems.push(`VESTIBULE_REMOTES_MANIFEST: ${(err as Error).message}`);
    }
  }
  if (problems.length) throw new Error(`the frontends server cannot start:\n  - ${problems.join("\n  - ")}`);
  return {
    port,
    host: env.HOST ?? "127.0.0.1",
    config: {
      apiUrl: publicUrl!,
      internalProjectId: "internal",
      internalPublishableClientKey: dashboardKey!,
      handlerProjectId: handlerProject,
      handlerPublishableClientKey: handlerKey!,
      mode: mode as RuntimeConfig["mode"],
    },
    manifest,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    const env = frontendsEnv(process.env);
    const missing = FRONTEND_APPS.filter((a) => !existsSync(join(FRONTENDS_DIR, a.dir, "dist", "index.html"))).map((a) => a.dir);
    if (missing.length) throw new Error(`not built: ${missing.join(", ")} (run npm run build:frontends when building the image)`);
    const server = await startFrontendsServer({ port: env.port, host: env.host, config: env.config, manifest: env.manifest });
    console.log(JSON.stringify({ level: 30, time: Date.now(), service: "frontends", msg: "listening", url: server.url }));
    const stop = () => void server.close().then(() => process.exit(0));
    process.on("SIGTERM", stop);
    process.on("SIGINT", stop);
  } catch (err) {
    console.error((err as Error).message);
    process.exit(1);
  }
}
