/** Loader hooks of module-audit.mjs (they run on the loader thread): append each resolved ESM URL to the file. */
import { appendFileSync } from "node:fs";

let file;
export function initialize(data) {
  file = data.file;
}
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  appendFileSync(file, `esm ${result.url}\n`);
  return result;
}
