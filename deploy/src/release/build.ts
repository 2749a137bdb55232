/**
 * `npm run build`: the release build. Plain ESM JavaScript in `dist/`, laid out like the checkout, so production runs
 * `node dist/<workspace>/src/main.js` with no TypeScript tooling loaded:
 *
 *   dist/package.json                       marks the release root (deploy/src/paths.ts finds it)
 *   dist/<workspace>/package.json           the workspace's manifest, its exports pointing at .js
 *   dist/<workspace>/src/**.js              compiled by tsc (tsconfig.build.json, imports rewritten .ts → .js)
 *   dist/<workspace>/migrations, assets     copied as they are (.sql, .mjs, .cjs, templates read at run time)
 *   dist/node_modules/@vestibule/<name>     symlinks to the workspaces: `@vestibule/shared/db` resolves to JS
 *   dist/frontends/<app>/dist               the built frontends (rspack, production)
 *
 * Third-party packages are not copied: Node finds them in the checkout's (or the image's) node_modules, the parent
 * of `dist/`. Usage: `npm run build [-- --no-frontends]`.
 */
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
export const DIST = join(ROOT, "dist");

/** Workspaces that run in production (the rest are tests, SDKs and browser apps). */
export const RUNTIME_WORKSPACES: readonly string[] = [
  "proto",
  ...readdirSync(join(ROOT, "services")).map((s) => `services/${s}`).filter((w) => existsSync(join(ROOT, w, "package.json"))),
  "gateway",
  "deploy",
  "frontends/build-config",
];

/** Folders of a workspace that are never part of the release. */
const SKIP_DIRS = new Set(["node_modules", "dist", "test", ".vestibule"]);
/** Files tsc compiles (their .js lands in dist) or that only tests and type checks read. */
const isSource = (name: string): boolean => /\.(ts|mts|cts)$/.test(name);

function copyAssets(workspace: string): number {
  let copied = 0;
  const walk = (rel: string): void => {
    for (const entry of readdirSync(join(ROOT, workspace, rel), { withFileTypes: true })) {
      const childRel = join(rel, entry.name);
      if (entry.isDirectory()) {
        if (!SKIP_DIRS.has(entry.name) && !entry.name.startsWith(".")) walk(childRel);
        continue;
      }
      if (!entry.isFile() || isSource(entry.name) || entry.name === "package.json" || /\.test\./.test(entry.name)) continue;
      // Only what the code reads at run time: everything under src/ (workers, templates), migrations, the proto
      // package's generated code is compiled (gen/*.ts), its .proto files are not needed.
      if (!(childRel.startsWith("src/") || childRel.startsWith("migrations/"))) continue;
      const target = join(DIST, workspace, childRel);
      mkdirSync(dirname(target), { recursive: true });
      cpSync(join(ROOT, workspace, childRel), target);
      copied++;
    }
  };
  walk("");
  return copied;
}

/** `./src/x.ts` → `./src/x.js` in every string of an exports map (conditions and subpath patterns included). */
export function exportsToJs(value: unknown): unknown {
  if (typeof value === "string") return value.replace(/\.ts$/, ".js");
  if (Array.isArray(value)) return value.map(exportsToJs);
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, exportsToJs(v)]));
  }
  return value;
}

function writeManifest(workspace: string): string {
  const manifest = JSON.parse(readFileSync(join(ROOT, workspace, "package.json"), "utf8")) as Record<string, unknown>;
  const out: Record<string, unknown> = {
    name: manifest.name,
    version: manifest.version,
    private: true,
    type: "module",
    ...(manifest.exports ? { exports: exportsToJs(manifest.exports) } : {}),
  };
  mkdirSync(join(DIST, workspace), { recursive: true });
  writeFileSync(join(DIST, workspace, "package.json"), `${JSON.stringify(out, null, 2)}\n`);
  // Packages npm could not hoist live in the workspace's own node_modules: keep them reachable from dist.
  if (existsSync(join(ROOT, workspace, "node_modules"))) {
    symlinkSync(relative(join(DIST, workspace), join(ROOT, workspace, "node_modules")), join(DIST, workspace, "node_modules"));
  }
  return manifest.name as string;
}

function linkWorkspaces(names: ReadonlyMap<string, string>): void {
  for (const [workspace, name] of names) {
    const link = join(DIST, "node_modules", name);
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(relative(dirname(link), join(DIST, workspace)), link, "dir");
  }
}

function copyFrontends(): number {
  let apps = 0;
  for (const app of readdirSync(join(ROOT, "frontends"))) {
    const built = join(ROOT, "frontends", app, "dist");
    if (!existsSync(join(built, "index.html")) && !existsSync(join(built, "remoteEntry.js"))) continue;
    cpSync(built, join(DIST, "frontends", app, "dist"), { recursive: true });
    apps++;
  }
  return apps;
}

export interface BuildOptions {
  readonly frontends?: boolean;
  readonly log?: (line: string) => void;
}

export function buildRelease(options: BuildOptions = {}): void {
  const log = options.log ?? ((line: string) => console.log(`build | ${line}`));
  const t0 = Date.now();
  rmSync(DIST, { recursive: true, force: true });
  const tsc = join(ROOT, "node_modules", "typescript", "bin", "tsc");
  execFileSync(process.execPath, [tsc, "-p", join(ROOT, "tsconfig.build.json")], { cwd: ROOT, stdio: "inherit" });
  log(`compiled TypeScript in ${Date.now() - t0} ms`);

  const names = new Map<string, string>();
  let assets = 0;
  for (const workspace of RUNTIME_WORKSPACES) {
    names.set(workspace, writeManifest(workspace));
    assets += copyAssets(workspace);
  }
  linkWorkspaces(names);
  const root = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { engines?: unknown };
  writeFileSync(
    join(DIST, "package.json"),
    `${JSON.stringify({ name: "vestibule-release", private: true, type: "module", engines: root.engines, vestibuleRelease: true }, null, 2)}\n`,
  );
  log(`${names.size} workspaces, ${assets} run-time files copied`);

  if (options.frontends ?? true) {
    execFileSync(process.execPath, ["--import", "tsx", join(ROOT, "frontends/build-config/src/build.ts")], { cwd: ROOT, stdio: "inherit" });
    log(`${copyFrontends()} frontends copied`);
  }
  log(`dist/ ready in ${Date.now() - t0} ms: node dist/deploy/src/start.js runs the platform`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    buildRelease({ frontends: !process.argv.includes("--no-frontends") });
  } catch (err) {
    console.error(`build failed: ${(err as Error).message}`);
    process.exit(1);
  }
}
