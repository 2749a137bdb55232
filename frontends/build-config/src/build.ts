/**
 * Builds every frontend (production mode, one rspack MultiCompiler in this process) unless the builds are up to date:
 * a hash of every input (sources of the frontends and of the SDK packages they bundle, their package.json files, the
 * lock file and this build config) is kept in `frontends/<app>/dist/.build-stamp`; equal stamps mean nothing to do.
 *
 *   node --import tsx frontends/build-config/src/build.ts [--force] [--dev]     (npm run build:frontends)
 *
 * Concurrent callers (two test workers, npm start and a test) serialise on a lock directory; the second one finds the
 * stamps fresh and returns.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { once } from "node:events";
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { FRONTEND_APPS } from "./apps.ts";

export const FRONTENDS_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const ROOT = resolve(FRONTENDS_DIR, "..");
const STAMP = ".build-stamp";
const LOCK = join(FRONTENDS_DIR, ".build-lock");

function walk(dir: string, out: string[]): void {
  if (!existsSync(dir)) return;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === "node_modules" || entry.name === "dist" || entry.name.startsWith(".")) continue;
    const full = join(dir, entry.name);
    if (entry.isDirectory()) walk(full, out);
    else if (!/\.test\.tsx?$/.test(entry.name)) out.push(full);
  }
}

/** Hash of everything a build reads (sources, manifests, lock file), independent of timestamps. */
export function inputsHash(mode: "production" | "development" = "production"): string {
  const files: string[] = [join(ROOT, "package-lock.json")];
  for (const base of [FRONTENDS_DIR, join(ROOT, "sdk")]) {
    for (const pkg of readdirSync(base, { withFileTypes: true })) {
      if (!pkg.isDirectory() || pkg.name === "e2e" || pkg.name.startsWith(".")) continue;
      const pkgDir = join(base, pkg.name);
      if (existsSync(join(pkgDir, "package.json"))) files.push(join(pkgDir, "package.json"));
      walk(join(pkgDir, "src"), files);
    }
  }
  files.sort();
  const hash = createHash("sha256").update(mode);
  for (const f of files) {
    if (!existsSync(f)) continue;
    hash.update(relative(ROOT, f)).update("\0").update(readFileSync(f)).update("\0");
  }
  return hash.digest("hex");
}

export function buildsAreFresh(hash: string): boolean {
  return FRONTEND_APPS.every((a) => {
    const stamp = join(FRONTENDS_DIR, a.dir, "dist", STAMP);
    return existsSync(stamp) && readFileSync(stamp, "utf8").trim() === hash;
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function withLock<T>(fn: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + 10 * 60_000;
  for (;;) {
    try {
      mkdirSync(LOCK);
      writeFileSync(join(LOCK, "pid"), String(process.pid));
      break;
    } catch {
      // Stale lock: its owner is gone.
      let owner = NaN;
      try {
        owner = Number(readFileSync(join(LOCK, "pid"), "utf8"));
      } catch {
        /* being created */
      }
      let alive = true;
      if (Number.isFinite(owner)) {
        try {
          process.kill(owner, 0);
        } catch {
          alive = false;
        }
      } else if (existsSync(LOCK) && Date.now() - statSync(LOCK).mtimeMs > 30_000) alive = false;
      if (!alive) rmSync(LOCK, { recursive: true, force: true });
      else if (Date.now() > deadline) throw new Error(`timed out waiting for the frontends build lock ${LOCK}`);
      else await sleep(250);
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}

export interface BuildResult {
  readonly built: boolean;
  readonly seconds: number;
}

/** Builds the frontends when their stamps do not match the inputs. */
export async function ensureFrontendsBuilt(options: { force?: boolean; mode?: "production" | "development"; log?: (line: string) => void } = {}): Promise<BuildResult> {
  const mode = options.mode ?? "production";
  const log = options.log ?? ((line: string) => void process.stdout.write(`${line}\n`));
  const t0 = Date.now();
  return withLock(async () => {
    const hash = inputsHash(mode);
    if (!options.force && buildsAreFresh(hash)) return { built: false, seconds: (Date.now() - t0) / 1000 };
    log(`building ${FRONTEND_APPS.length} frontends (${mode}) ...`);
    // A plain node child (no TypeScript loader): see federated-config.mjs.
    const child = spawn(process.execPath, [join(dirname(fileURLToPath(import.meta.url)), "compile.mjs"), JSON.stringify({ apps: FRONTEND_APPS, frontendsDir: FRONTENDS_DIR, mode })], {
      cwd: ROOT,
      env: { ...process.env, NODE_OPTIONS: "" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (d: Buffer) => void (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => void (output += d.toString()));
    const [code] = (await once(child, "exit")) as [number | null];
    if (code !== 0) throw new Error(`frontends build failed:\n${output.trim()}`);
    for (const a of FRONTEND_APPS) writeFileSync(join(FRONTENDS_DIR, a.dir, "dist", STAMP), `${hash}\n`);
    const seconds = (Date.now() - t0) / 1000;
    log(`built the frontends in ${seconds.toFixed(1)} s`);
    return { built: true, seconds };
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  ensureFrontendsBuilt({ force: args.includes("--force"), mode: args.includes("--dev") ? "development" : "production" }).then(
    (r) => {
      if (!r.built) console.log("frontends are up to date");
    },
    (err: Error) => {
      console.error(err.message);
      process.exit(1);
    },
  );
}
