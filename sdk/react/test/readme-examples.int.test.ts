/**
 * The README examples of @vestibule/sdk-core, @vestibule/js and @vestibule/react run as written (the block after the
 * "runs as a test" marker), against a real gateway; their output is checked. The examples read their configuration
 * from VESTIBULE_* environment variables, which this test sets to the test platform's.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { renderToString } from "react-dom/server";
import { prerender } from "react-dom/static";
import { createElement, type FunctionComponent } from "react";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startStack, type Stack } from "../../../gateway/test/support.ts";

const root = join(import.meta.dirname, "..", "..", "..");
const outDir = join(root, "test-results", "sdk", "readme");

/** The code block that follows the marker comment in a README. */
function example(pkg: string): { code: string; ext: string } {
  const readme = readFileSync(join(root, "sdk", pkg, "README.md"), "utf8");
  const m = /<!-- example: runs as a test[^>]*-->\s*```(ts|tsx)\n([\s\S]*?)```/.exec(readme);
  if (!m) throw new Error(`no runnable example in sdk/${pkg}/README.md`);
  return { ext: m[1]!, code: m[2]! };
}

async function runExample(pkg: string): Promise<{ logs: string[]; module: Record<string, unknown> }> {
  const { code, ext } = example(pkg);
  mkdirSync(outDir, { recursive: true });
  const file = join(outDir, `${pkg}-example.${ext}`);
  writeFileSync(file, code);
  const logs: string[] = [];
  const spy = vi.spyOn(console, "log").mockImplementation((...args: unknown[]) => void logs.push(args.join(" ")));
  try {
    const module = (await import(/* @vite-ignore */ file)) as Record<string, unknown>;
    return { logs, module };
  } finally {
    spy.mockRestore();
  }
}

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ auth: true });
  vi.stubEnv("VESTIBULE_API_URL", stack.url);
  vi.stubEnv("VESTIBULE_PROJECT_ID", stack.demo.projectId);
  vi.stubEnv("VESTIBULE_PUBLISHABLE_CLIENT_KEY", stack.demo.publishableClientKey);
  vi.stubEnv("VESTIBULE_SECRET_SERVER_KEY", stack.demo.secretServerKey);
});
afterAll(async () => {
  vi.unstubAllEnvs();
  await stack?.stop();
});

describe("README examples", () => {
  it("@vestibule/sdk-core", async () => {
    const { logs } = await runExample("core");
    expect(logs).toEqual(["project: Demo Project", "known error: CANNOT_GET_OWN_USER_WITHOUT_USER (400)", "anonymous: true", "hashed key length: 44"]);
  });

  it("@vestibule/js", async () => {
    const { logs } = await runExample("js");
    expect(logs).toEqual([
      expect.stringMatching(/^signed in as readme-\d+@example\.com$/),
      "server sees Readme Reader on plan pro",
      "request user: true",
      "after sign-out: null",
    ]);
  });

  it("@vestibule/react", async () => {
    const { module } = await runExample("react");
    const App = module.App as FunctionComponent;
    const { prelude } = await prerender(createElement(App));
    const html = await new Response(prelude).text();
    expect(html).toContain("Welcome to Demo Project");
    expect(html).toContain('aria-label="User menu"');
    expect(html).toContain('data-avatar="icon"');
    expect(renderToString(createElement("p", null, "ok"))).toBe("<p>ok</p>");
  });
});
