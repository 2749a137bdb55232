/**
 * Measuring helpers shared by the benchmark (deploy/src/bench.ts) and the profilers (profile-refresh.ts,
 * profile-sign-in.ts): CPU ticks from /proc, the machine's argon2id rate, .cpuprofile summaries.
 */
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { hash as argon2Hash } from "@node-rs/argon2";

/** Clock ticks per second of /proc's CPU times (USER_HZ). */
export const CLK_TCK = 100;

export function cpuTicks(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
}

/** The ids of the machine's processes (the numeric entries of /proc). */
export function processIds(): number[] {
  return readdirSync("/proc").filter((d) => /^\d+$/.test(d)).map(Number);
}

/** CPU ticks of a process and every process it started (e.g. the e-mail service's render processes), 0 when gone. */
export function treeCpuTicks(pid: number): number {
  const children = new Map<number, number[]>();
  for (const d of processIds()) {
    try {
      const stat = readFileSync(`/proc/${d}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), d]);
    } catch {
      // The process went away.
    }
  }
  let ticks = 0;
  const todo = [pid];
  while (todo.length > 0) {
    const p = todo.pop()!;
    ticks += cpuTicks(p);
    todo.push(...(children.get(p) ?? []));
  }
  return ticks;
}

/** Busy ticks of the whole machine (everything but idle and iowait), to see how loaded it was. */
export function machineBusyTicks(): { busy: number; total: number } {
  const line = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = line.reduce((a, b) => a + b, 0);
  return { busy: total - line[3]! - line[4]!, total };
}

/** argon2id hashes per second on this machine with the auth service's parameters (4 in flight, like its pool). */
export async function argon2Rate(seconds: number): Promise<number> {
  const end = Date.now() + seconds * 1000;
  let n = 0;
  const worker = async () => {
    while (Date.now() < end) {
      await argon2Hash(`bench-password-${n}`, { memoryCost: 19456, timeCost: 2, parallelism: 1 });
      n++;
    }
  };
  const started = Date.now();
  await Promise.all(Array.from({ length: 4 }, worker));
  return n / ((Date.now() - started) / 1000);
}

export async function json(res: Response): Promise<any> {
  const text = await res.text();
  if (!res.ok) throw new Error(`${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

export interface Hot {
  name: string;
  selfMs: number;
}

/** Self time per function (name + file:line) of a .cpuprofile, hottest first. */
export function hottest(file: string, top: number): { totalMs: number; functions: Hot[]; byArea: Hot[] } {
  const prof = JSON.parse(readFileSync(file, "utf8")) as {
    nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
    samples: number[];
    timeDeltas: number[];
  };
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  const area = new Map<string, number>();
  let totalMs = 0;
  for (let i = 0; i < prof.samples.length; i++) {
    const node = byId.get(prof.samples[i]!)!;
    const ms = (prof.timeDeltas[i] ?? 0) / 1000;
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === "(idle)") continue;
    totalMs += ms;
    const short = url.replace(/^file:\/\//, "").replace(/.*\/node_modules\//, "nm:").replace(/.*\/work\/main\//, "");
    const key = `${functionName || "(anonymous)"} ${short}:${lineNumber + 1}`;
    self.set(key, (self.get(key) ?? 0) + ms);
    const a = short.startsWith("nm:") ? short.split("/").slice(0, short.startsWith("nm:@") ? 2 : 1).join("/") : short === "" ? functionName : short.startsWith("node:") ? short : short.split("/").slice(0, 3).join("/");
    area.set(a, (area.get(a) ?? 0) + ms);
  }
  const sorted = (m: Map<string, number>) => [...m].map(([name, selfMs]) => ({ name, selfMs })).sort((x, y) => y.selfMs - x.selfMs).slice(0, top);
  return { totalMs, functions: sorted(self), byArea: sorted(area) };
}

/** Prints a process's .cpuprofile summary: per operation, by area and its hottest functions (self time). */
export function printHottest(say: (line: string) => void, p: { name: string; file: string; ops: number; unit: string; top: number; areas: number }): void {
  if (!existsSync(p.file)) {
    say(`\n== ${p.name}: no profile written (${p.file})`);
    return;
  }
  const h = hottest(p.file, p.top);
  say(`\n== ${p.name} (${p.file}): ${h.totalMs.toFixed(0)} ms sampled on the main thread, ${(h.totalMs / Math.max(p.ops, 1)).toFixed(3)} ms per ${p.unit}`);
  say("  by area (self time):");
  for (const x of h.byArea.slice(0, p.areas)) say(`    ${x.selfMs.toFixed(0).padStart(7)} ms  ${x.name}`);
  say("  hottest functions (self):");
  for (const x of h.functions) say(`    ${x.selfMs.toFixed(0).padStart(7)} ms  ${x.name}`);
}
