/**
 * The private platform a profiler measures (profile-refresh.ts, profile-sign-in.ts, profile-sign-up.ts): a fresh
 * database on DATABASE_URL's server (default the local PostgreSQL), free ports, quiet logs; with `cpuProf` every
 * process records a CPU profile into `out` (cpu-profile-hook.mjs, started and stopped by SIGUSR2).
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { checkoutRoot } from "../paths.ts";
import { startTestPlatform, type TestPlatform } from "../test-platform.ts";

export function startProfiledPlatform(opts: { bus?: "nats" | "postgres"; cpuProf: boolean; out: string; env?: Record<string, string> }): Promise<TestPlatform> {
  process.env.DATABASE_URL ||= "postgres://postgres@127.0.0.1:5432/test";
  mkdirSync(opts.out, { recursive: true });
  return startTestPlatform({
    bus: opts.bus ?? "nats",
    printLevel: "error",
    platform: {
      logLevel: "warn",
      env: {
        ...opts.env,
        ...(opts.cpuProf ? { NODE_OPTIONS: `--import ${join(checkoutRoot, "deploy/src/bench/cpu-profile-hook.mjs")}`, VESTIBULE_CPU_PROF_DIR: opts.out } : {}),
      },
    },
  });
}
