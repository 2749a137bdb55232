/**
 * Issue 18, e-mail TSX rendering: owner-written templates render in separate processes that hold none of the e-mail
 * service's secrets and may not read files beyond the render code and its packages, write files or start processes.
 * Inside, template code has no `process` or `require` at all (renderer.test.ts); these tests check the wall behind
 * that one: what a template would find if it ever reached its process.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isKnownError, type KnownError } from "@vestibule/shared/errors";
import { createLogger } from "@vestibule/shared/log";
import { renderProcessExecArgv } from "../src/render/render-process.ts";
import { EmailRenderer } from "../src/render/renderer.ts";

const SECRET = `k1:${"s3cr3t".repeat(8)}`;
const props = { user: { displayName: "Ada" }, project: { displayName: "Acme" } };

let dir: string;
let renderer: EmailRenderer;
const saved = process.env.VESTIBULE_MASTER_KEYS;

beforeAll(() => {
  // The service's environment holds the master keys; a file on disk holds another secret.
  process.env.VESTIBULE_MASTER_KEYS = SECRET;
  dir = mkdtempSync(join(tmpdir(), "render-isolation-"));
  writeFileSync(join(dir, "secret.txt"), SECRET);
  renderer = new EmailRenderer({ workers: 1, timeoutMs: 1_000, memoryMb: 32, log: createLogger({ service: "test", level: "silent" }) });
});
afterAll(async () => {
  await renderer?.close();
  rmSync(dir, { recursive: true, force: true });
  if (saved === undefined) delete process.env.VESTIBULE_MASTER_KEYS;
  else process.env.VESTIBULE_MASTER_KEYS = saved;
});

async function renderError(templateSource: string): Promise<string> {
  const err = await renderer.render({ ...props, templateSource }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isKnownError(err, "EMAIL_RENDERING_ERROR")).toBe(true);
  return (err as KnownError<"EMAIL_RENDERING_ERROR">).details.error;
}

/** Runs `code` as a render process would run (same flags, empty environment); gives what it printed. */
function asRenderProcess(code: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [...renderProcessExecArgv(32), "--input-type=module", "-e", code], { env: {}, timeout: 20_000 }, (err, stdout, stderr) =>
      err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout.trim()),
    );
  });
}

describe("e-mail rendering runs in separate, unprivileged processes", () => {
  it("a template that reads process.env or requires fs gets nothing, and renders still work", async () => {
    expect(await renderError("export function EmailTemplate() { return String(process.env.VESTIBULE_MASTER_KEYS); }")).toBe("ReferenceError: process is not defined");
    expect(await renderError("export function EmailTemplate() { return require('fs').readFileSync('/etc/hostname', 'utf8'); }")).toMatch(/Cannot import "fs"/);
    expect(await renderError(`import { readFileSync } from "node:fs"; export function EmailTemplate() { return readFileSync(${JSON.stringify(join(dir, "secret.txt"))}, "utf8"); }`)).toMatch(
      /Cannot import "node:fs"/,
    );
    const ok = await renderer.render({ ...props, templateSource: "export function EmailTemplate({ user }) { return <p>Hi {user.displayName}</p>; }" });
    expect(ok.html).toBe("<p>Hi Ada</p>");
    expect(ok.html + ok.text).not.toContain("s3cr3t");
  });

  it("the render process is another process whose environment holds only the IPC channel's settings", async () => {
    const pids = renderer.processIds();
    expect(pids).toHaveLength(1);
    expect(pids[0]).not.toBe(process.pid);
    const environ = readFileSync(`/proc/${pids[0]}/environ`, "utf8");
    expect(environ).not.toContain("s3cr3t");
    // Set by Node's fork for the IPC channel, nothing else.
    expect(environ.split("\0").filter(Boolean).map((e) => e.split("=")[0]).sort()).toEqual(["NODE_CHANNEL_FD", "NODE_CHANNEL_SERIALIZATION_MODE"]);
    expect(readFileSync(`/proc/${pids[0]}/cmdline`, "utf8")).toMatch(/--(experimental-)?permission/);
  });

  it("code running as a render process finds no secret, reads no file outside its packages, writes none and starts no process", async () => {
    const secretFile = join(dir, "secret.txt");
    const serviceConfig = fileURLToPath(new URL("../src/config.ts", import.meta.url));
    const out = await asRenderProcess(`
      import fs from "node:fs";
      import cp from "node:child_process";
      const tryIt = (f) => { try { return String(f()); } catch (e) { return e.code ?? e.message; } };
      console.log(JSON.stringify({
        env: JSON.stringify(process.env),
        secret: tryIt(() => fs.readFileSync(${JSON.stringify(secretFile)}, "utf8")),
        source: tryIt(() => fs.readFileSync(${JSON.stringify(serviceConfig)}, "utf8").length),
        passwd: tryIt(() => fs.readFileSync("/etc/passwd", "utf8").length),
        environ: tryIt(() => fs.readFileSync("/proc/" + process.ppid + "/environ", "utf8")),
        write: tryIt(() => fs.writeFileSync(${JSON.stringify(join(dir, "written.txt"))}, "x")),
        spawn: tryIt(() => cp.execFileSync("/bin/true")),
      }));`);
    const seen = JSON.parse(out) as Record<string, string>;
    expect(seen).toEqual({
      env: "{}",
      secret: "ERR_ACCESS_DENIED",
      source: "ERR_ACCESS_DENIED",
      passwd: "ERR_ACCESS_DENIED",
      environ: "ERR_ACCESS_DENIED",
      write: "ERR_ACCESS_DENIED",
      spawn: "ERR_ACCESS_DENIED",
    });
    expect(out).not.toContain("s3cr3t");
  });
});
