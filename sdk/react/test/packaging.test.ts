/**
 * Packaging: each SDK package builds (npm run build) to ESM + .d.ts, plain Node loads the built packages through
 * their "import" export (no TypeScript, no "source" condition), and a browser bundle of @vestibule/js and
 * @vestibule/react needs no Node built-ins (the frontends load them as Module Federation singletons).
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { build } from "esbuild";
import { beforeAll, describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..", "..", "..");
const packages = [
  ["core", "@vestibule/sdk-core"],
  ["js", "@vestibule/js"],
  ["react", "@vestibule/react"],
] as const;

beforeAll(() => {
  for (const [, name] of packages) execFileSync("npm", ["run", "build", "-w", name], { cwd: root, stdio: "pipe" });
}, 120_000);

describe("SDK packages", () => {
  it.each(packages)("%s builds ESM with types and explicit exports", (dir, name) => {
    const pkg = JSON.parse(readFileSync(join(root, "sdk", dir, "package.json"), "utf8"));
    expect(pkg.name).toBe(name);
    expect(pkg.type).toBe("module");
    expect(pkg.exports["."]).toEqual({ source: "./src/index.ts", types: "./dist/index.d.ts", import: "./dist/index.js" });
    expect(existsSync(join(root, "sdk", dir, "dist", "index.js"))).toBe(true);
    expect(existsSync(join(root, "sdk", dir, "dist", "index.d.ts"))).toBe(true);
    expect(readFileSync(join(root, "sdk", dir, "dist", "index.js"), "utf8")).not.toMatch(/from "\.[^"]*\.tsx?"/);
  });

  it("plain Node loads the built packages", () => {
    const script = `
      const core = await import("@vestibule/sdk-core");
      const js = await import("@vestibule/js");
      const react = await import("@vestibule/react");
      console.log(JSON.stringify({
        core: typeof core.ApiClient, errors: Object.keys(core.KnownErrors).length,
        js: [typeof js.StackClientApp, js.VestibuleServerApp === js.StackServerApp, js.CLIENT_VERSION],
        react: [typeof react.UserButton, typeof react.useUser],
        fromDist: import.meta.resolve("@vestibule/js").endsWith("/sdk/js/dist/index.js"),
      }));`;
    const out = JSON.parse(execFileSync(process.execPath, ["--input-type=module", "-e", script], { cwd: root, encoding: "utf8" }));
    expect(out).toEqual({
      core: "function",
      errors: expect.any(Number),
      js: ["function", true, "js @vestibule/js@0.1.0"],
      react: ["function", "function"],
      fromDist: true,
    });
    expect(out.errors).toBeGreaterThan(100);
  });

  it("its declarations type-check in a consumer: an owned project's app is the admin app (issue 22)", () => {
    // types/admin.d.ts names the admin app without importing admin-app.d.ts (which imports it): admin-app.d.ts fills
    // the interface in by declaration merging. A consumer must see the whole admin app there, through the "types"
    // export alone (no "source" condition), and a wrong use must still be an error.
    const dir = mkdtempSync(join(root, "node_modules", ".consumer-"));
    try {
      writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module" }));
      const compilerOptions = { strict: true, module: "nodenext", moduleResolution: "nodenext", target: "es2022", noEmit: true, lib: ["ES2023", "DOM"], types: [] };
      writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions, files: ["consumer.ts"] }));
      writeFileSync(
        join(dir, "consumer.ts"),
        [
          'import type { AdminOwnedProject, CurrentInternalUser, StackAdminApp } from "@vestibule/js";',
          "export async function first(user: CurrentInternalUser): Promise<StackAdminApp | undefined> {",
          "  const projects: AdminOwnedProject[] = await user.listOwnedProjects();",
          "  await projects[0]?.app.listInternalApiKeys();",
          "  return projects[0]?.app;",
          "}",
          "export const wrong = (p: AdminOwnedProject): number => p.app;",
        ].join("\n"),
      );
      const tsc = join(root, "node_modules", "typescript", "bin", "tsc");
      const run = () => execFileSync(process.execPath, [tsc, "-p", dir], { cwd: dir, encoding: "utf8", stdio: "pipe" });
      const errors = (() => {
        try {
          run();
          return "";
        } catch (err) {
          return String((err as { stdout?: string }).stdout);
        }
      })();
      expect(errors.trim().split("\n")).toEqual([expect.stringMatching(/^consumer\.ts\(7,\d+\): error TS2322: .* is not assignable to type 'number'\.$/)]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("bundles for the browser without Node built-ins, with react as an external singleton", async () => {
    const result = await build({
      stdin: { contents: 'export * from "@vestibule/js"; export * from "@vestibule/react";', resolveDir: root, loader: "ts" },
      bundle: true,
      write: false,
      format: "esm",
      platform: "browser",
      external: ["react", "react-dom", "react/jsx-runtime"],
      logLevel: "silent",
    });
    expect(result.errors).toEqual([]);
    const code = result.outputFiles[0]!.text;
    expect(code).not.toMatch(/from\s*["']node:/);
    expect(code).toContain("stack-oauth-outer-");
  });
});
