/**
 * The published `@stackframe/js` for a browser page, unchanged: esbuild bundles the package as npm ships it (2.8.41
 * under the alias `stackframe-js-2841`, the current release as `@stackframe/js`) into one script that puts
 * `StackClientApp` on `window`. Bundles are cached per version for the test run.
 */
import { build } from "esbuild";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";

const cache = new Map<string, Promise<string>>();
const root = dirname(fileURLToPath(import.meta.url));

export function bundleStackframeJs(version: "2.8.41" | "latest"): Promise<string> {
  let p = cache.get(version);
  if (!p) {
    const pkg = version === "2.8.41" ? "stackframe-js-2841" : "@stackframe/js";
    p = build({
      stdin: { contents: `import { StackClientApp } from ${JSON.stringify(pkg)}; window.StackClientApp = StackClientApp;`, resolveDir: root, loader: "js" },
      bundle: true,
      write: false,
      format: "iife",
      platform: "browser",
      target: "es2022",
      minify: true,
      logLevel: "silent",
      define: { "process.env.NODE_ENV": '"production"' },
    }).then((r) => r.outputFiles[0]!.text);
    cache.set(version, p);
  }
  return p;
}
