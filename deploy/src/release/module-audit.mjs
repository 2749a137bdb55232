/**
 * Records every module a process resolves (ESM imports through a loader hook, CommonJS requires through
 * Module._resolveFilename), one URL or path per line, into the file named by VESTIBULE_MODULE_AUDIT.
 * Used by `npm run measure:processes` to prove a release process loads no TypeScript tooling:
 *   node --import ./deploy/src/release/module-audit.mjs dist/services/auth/src/main.js
 */
import { appendFileSync } from "node:fs";
import Module, { register } from "node:module";

const file = process.env.VESTIBULE_MODULE_AUDIT;
if (file) {
  appendFileSync(file, `argv ${JSON.stringify(process.execArgv)} NODE_OPTIONS=${process.env.NODE_OPTIONS ?? ""}\n`);
  register("./module-audit-hooks.mjs", import.meta.url, { data: { file } });
  const resolveFilename = Module._resolveFilename;
  Module._resolveFilename = function (...args) {
    const resolved = resolveFilename.apply(this, args);
    appendFileSync(file, `cjs ${resolved}\n`);
    return resolved;
  };
}
