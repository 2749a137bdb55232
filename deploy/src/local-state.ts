/** Files of the embedded default under `<checkout>/.vestibule/`: secrets.json and dev.json. */
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { DevFile } from "./bootstrap.ts";
import { stateDir } from "./paths.ts";

export interface LocalSecrets {
  /** `VESTIBULE_MASTER_KEYS` value: `<id>:<base64 32 bytes>`. */
  master_keys: string;
  /** `VESTIBULE_SERVICE_SECRET` value. */
  service_secret: string;
}

/** Creates `.vestibule/` (world-traversable so the embedded Postgres user reaches its data; files inside are 0600). */
export function ensureStateDir(dir: string = stateDir): string {
  mkdirSync(dir, { recursive: true, mode: 0o755 });
  return dir;
}

/** Writes a file atomically with mode 0600. */
export function writePrivateJson(path: string, value: unknown): void {
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, path);
}

function readJson(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, "utf8"));
  } catch (err) {
    throw new Error(`${path} is not valid JSON (${(err as Error).message}); fix or delete it`);
  }
}

export function generateSecrets(): LocalSecrets {
  return {
    master_keys: `local-1:${randomBytes(32).toString("base64")}`,
    service_secret: randomBytes(32).toString("base64url"),
  };
}

/**
 * Secrets for the platform: `VESTIBULE_MASTER_KEYS` / `VESTIBULE_SERVICE_SECRET` from the environment when set,
 * otherwise from `.vestibule/secrets.json`, created on first use.
 */
export function loadOrCreateSecrets(
  env: Readonly<Record<string, string | undefined>> = process.env,
  dir: string = stateDir,
): LocalSecrets & { source: string } {
  const fromEnv = { master_keys: env.VESTIBULE_MASTER_KEYS, service_secret: env.VESTIBULE_SERVICE_SECRET };
  if (fromEnv.master_keys && fromEnv.service_secret) {
    return { master_keys: fromEnv.master_keys, service_secret: fromEnv.service_secret, source: "environment" };
  }
  ensureStateDir(dir);
  const path = join(dir, "secrets.json");
  let stored: LocalSecrets;
  let source = path;
  if (existsSync(path)) {
    const raw = readJson(path) as Partial<LocalSecrets>;
    if (typeof raw.master_keys !== "string" || typeof raw.service_secret !== "string") {
      throw new Error(`${path} must hold "master_keys" and "service_secret"; fix or delete it`);
    }
    stored = { master_keys: raw.master_keys, service_secret: raw.service_secret };
    chmodSync(path, 0o600);
  } else {
    stored = generateSecrets();
    writePrivateJson(path, stored);
    source = `${path} (new)`;
  }
  return {
    master_keys: fromEnv.master_keys || stored.master_keys,
    service_secret: fromEnv.service_secret || stored.service_secret,
    source,
  };
}

export function readDevFile(dir: string = stateDir): DevFile | undefined {
  const path = join(dir, "dev.json");
  if (!existsSync(path)) return undefined;
  const raw = readJson(path) as Partial<DevFile>;
  return raw && typeof raw === "object" && raw.projects ? (raw as DevFile) : undefined;
}

export function writeDevFile(file: DevFile, dir: string = stateDir): string {
  ensureStateDir(dir);
  const path = join(dir, "dev.json");
  writePrivateJson(path, file);
  return path;
}
