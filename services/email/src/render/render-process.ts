import { fork, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/**
 * Starting one render process (issue 18): admin-written TSX must not run in the e-mail service's process, whose
 * environment holds the master keys and the service secret. A render process is a plain `node` child started with
 * an empty environment and under Node's permission model: it may read only the render directory and the packages the
 * renderer loads (react, react-dom, html-to-text and their dependencies), and no file writes, child processes,
 * workers, addons or WASI. Its heap is limited by V8 flags. It talks to the service over the IPC channel only.
 *
 * Not covered by Node's permission model (before Node 24's `--allow-net`): outgoing network connections. Template code
 * still runs in a `node:vm` context with no `require`, `process` or sockets (render-worker.mjs); this process is the
 * second wall, and keeping service ports on a private network (SECURITY.md) is the third.
 */

const WORKER_PATH = fileURLToPath(new URL("./render-worker.mjs", import.meta.url));
const RENDER_DIR = dirname(WORKER_PATH);

/** The directory of package `name` as Node would find it from `fromDir` (real path, symlinks resolved). */
function packageDir(name: string, fromDir: string): string {
  for (let dir = fromDir; ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", name);
    if (existsSync(join(candidate, "package.json"))) return realpathSync(candidate);
    if (dirname(dir) === dir) throw new Error(`the e-mail renderer needs the package ${name}, which is not installed`);
  }
}

/** The directories of `names` and of everything they depend on (dependencies, optional ones when installed). */
function packageClosure(names: readonly string[], fromDir: string): { byName: Map<string, string>; dirs: Set<string> } {
  const found = new Map<string, string>();
  const queue = names.map((name) => ({ name, from: fromDir, optional: false }));
  const seen = new Set<string>();
  for (let next = queue.shift(); next; next = queue.shift()) {
    let dir: string;
    try {
      dir = packageDir(next.name, next.from);
    } catch (err) {
      if (next.optional) continue;
      throw err;
    }
    if (seen.has(dir)) continue;
    seen.add(dir);
    if (!found.has(next.name)) found.set(next.name, dir);
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { dependencies?: object; optionalDependencies?: object };
    for (const dep of Object.keys(pkg.dependencies ?? {})) queue.push({ name: dep, from: dir, optional: false });
    for (const dep of Object.keys(pkg.optionalDependencies ?? {})) queue.push({ name: dep, from: dir, optional: true });
  }
  return { byName: found, dirs: seen };
}

interface Layout {
  readonly readable: readonly string[];
  readonly paths: { readonly react: string; readonly reactDom: string; readonly htmlToText: string };
}

let layout: Layout | undefined;

/** Resolved once per service process: what a render process may read and where its packages are. */
function renderLayout(): Layout {
  if (layout) return layout;
  const { byName, dirs } = packageClosure(["react", "react-dom", "html-to-text"], RENDER_DIR);
  const htmlToText = byName.get("html-to-text")!;
  const entry = (JSON.parse(readFileSync(join(htmlToText, "package.json"), "utf8")) as { exports?: { ".": { import?: string } } }).exports?.["."]?.import;
  layout = {
    readable: [realpathSync(RENDER_DIR), ...dirs],
    paths: {
      react: byName.get("react")!,
      reactDom: byName.get("react-dom")!,
      htmlToText: pathToFileURL(join(htmlToText, entry ?? "lib/html-to-text.mjs")).href,
    },
  };
  return layout;
}

/** Node's flag for the permission model: `--permission` since 22.13 / 23.5, `--experimental-permission` before. */
function permissionFlag(): string {
  const [major = 0, minor = 0] = process.versions.node.split(".").map(Number);
  return major >= 24 || (major === 23 && minor >= 5) || (major === 22 && minor >= 13) ? "--permission" : "--experimental-permission";
}

/** The `node` flags of a render process: the permission model with its readable directories, the heap limit. */
export function renderProcessExecArgv(memoryMb: number): string[] {
  return [
    permissionFlag(),
    ...renderLayout().readable.map((dir) => `--allow-fs-read=${dir}/`),
    `--max-old-space-size=${memoryMb}`,
    `--max-semi-space-size=${Math.max(1, Math.floor(memoryMb / 16))}`,
    "--no-warnings",
  ];
}

/** Starts a render process with a heap of `memoryMb`; stdout is dropped, stderr piped (for the cause of a crash). */
export function spawnRenderProcess(memoryMb: number): ChildProcess {
  return fork(WORKER_PATH, [`--paths=${JSON.stringify(renderLayout().paths)}`], {
    // No inherited loader flags (e.g. tsx), no environment at all: nothing secret to find.
    execArgv: renderProcessExecArgv(memoryMb),
    env: {},
    cwd: RENDER_DIR,
    stdio: ["ignore", "ignore", "pipe", "ipc"],
    serialization: "json",
  });
}
