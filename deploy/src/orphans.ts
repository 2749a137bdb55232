/**
 * Finds service/gateway processes left behind by a launcher that was SIGKILLed (they run in their own process
 * groups, so nothing else stops them) and stops them, so the next `npm start` gets its ports back.
 * Only orphans are touched: processes of this checkout whose parent is gone (re-parented to init or a subreaper that
 * is not a Node process). Children of a live launcher or test run are left alone.
 */
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { checkoutRoot, isReleaseBuild } from "./paths.ts";

interface Found {
  pid: number;
  entry: string;
}

function readProc(pid: number, file: string): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/${file}`, "utf8");
  } catch {
    return undefined;
  }
}

function parentPid(pid: number): number | undefined {
  const stat = readProc(pid, "stat");
  if (!stat) return undefined;
  // Field 4 after the `(comm)` field, which may itself contain spaces.
  const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ppid = Number.parseInt(rest[1] ?? "", 10);
  return Number.isInteger(ppid) ? ppid : undefined;
}

function isNode(pid: number): boolean {
  const cmd = readProc(pid, "cmdline")?.split("\0")[0] ?? "";
  return /(^|\/)node$/.test(cmd);
}

export function findOrphans(entries: readonly string[]): Found[] {
  if (process.platform !== "linux") return [];
  const found: Found[] = [];
  for (const name of readdirSync("/proc")) {
    const pid = Number.parseInt(name, 10);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    const args = readProc(pid, "cmdline")?.split("\0") ?? [];
    const entry = entries.find((e) => args.includes(e));
    if (!entry || (!isReleaseBuild && !args.includes("tsx"))) continue;
    let cwd: string;
    try {
      cwd = readlinkSync(`/proc/${pid}/cwd`);
    } catch {
      continue;
    }
    if (cwd !== checkoutRoot) continue;
    const ppid = parentPid(pid);
    if (ppid === undefined || ppid === 1 || !isNode(ppid)) found.push({ pid, entry });
  }
  return found;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** SIGTERM, then SIGKILL after `graceMs`. Returns what was stopped. */
export async function stopOrphans(entries: readonly string[], graceMs = 5_000): Promise<Found[]> {
  const orphans = findOrphans(entries);
  for (const o of orphans) {
    try {
      process.kill(o.pid, "SIGTERM");
    } catch {
      /* gone */
    }
  }
  const deadline = Date.now() + graceMs;
  while (orphans.some((o) => alive(o.pid)) && Date.now() < deadline) await sleep(100);
  for (const o of orphans) {
    if (alive(o.pid)) {
      try {
        process.kill(o.pid, "SIGKILL");
      } catch {
        /* gone */
      }
    }
  }
  return orphans;
}
