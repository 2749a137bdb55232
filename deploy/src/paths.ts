import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** Absolute path of the repository checkout (the folder holding the root package.json). */
export const checkoutRoot: string = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** `<checkout>/.vestibule`: local state of the embedded default (secrets, dev keys, embedded Postgres data). */
export const stateDir: string = join(checkoutRoot, ".vestibule");

/** Path of a file or folder inside the checkout. */
export function inCheckout(...parts: string[]): string {
  return join(checkoutRoot, ...parts);
}

if (!existsSync(join(checkoutRoot, "package.json"))) {
  throw new Error(`deploy/src/paths.ts: no package.json at the computed checkout root ${checkoutRoot}`);
}
