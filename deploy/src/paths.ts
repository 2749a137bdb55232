import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * Absolute path of the code root: the repository checkout (the folder holding the root package.json), or `dist/`
 * when this runs from the release build (`npm run build`, plain JavaScript laid out like the checkout).
 */
export const checkoutRoot: string = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** True when running the compiled release (`node dist/...`): children are started without TypeScript tooling. */
export const isReleaseBuild: boolean = fileURLToPath(import.meta.url).endsWith(".js");

/** Extension of the entry files of this tree: `ts` (sources, run through tsx) or `js` (release build). */
export const entryExtension: "ts" | "js" = isReleaseBuild ? "js" : "ts";

/** Node arguments that load an entry file of this tree (`--import tsx` only for the TypeScript sources). */
export const nodeLoaderArgs: readonly string[] = isReleaseBuild ? [] : ["--import", "tsx"];

function defaultStateDir(): string {
  if (process.env.VESTIBULE_STATE_DIR) return resolve(process.env.VESTIBULE_STATE_DIR);
  // A release build inside a checkout shares the checkout's state (rebuilding dist/ must not lose secrets.json).
  const parent = resolve(checkoutRoot, "..");
  if (isReleaseBuild && existsSync(join(parent, "package.json"))) {
    const manifest = JSON.parse(readFileSync(join(parent, "package.json"), "utf8")) as { workspaces?: unknown };
    if (manifest.workspaces) return join(parent, ".vestibule");
  }
  return join(checkoutRoot, ".vestibule");
}

/** Local state of the embedded default (secrets, dev keys, embedded Postgres data): `<checkout>/.vestibule`. */
export const stateDir: string = defaultStateDir();

/** Path of a file or folder inside the checkout. */
export function inCheckout(...parts: string[]): string {
  return join(checkoutRoot, ...parts);
}

if (!existsSync(join(checkoutRoot, "package.json"))) {
  throw new Error(`deploy/src/paths.ts: no package.json at the computed checkout root ${checkoutRoot}`);
}
