/**
 * Configuration from environment variables: declared once, read once at start-up, validated as a whole.
 * `readConfig` collects every problem and throws one ConfigError listing them all, so an operator fixes a broken
 * deployment in one round instead of one variable at a time.
 */

export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

export interface Field<T> {
  readonly env: string;
  readonly description: string;
  /** Parses the raw value; returns the value or throws an Error whose message explains the problem. */
  parse(raw: string | undefined): T;
}

type Env = Readonly<Record<string, string | undefined>>;

function field<T>(env: string, description: string, parse: (raw: string | undefined) => T): Field<T> {
  return { env, description, parse };
}

function present(raw: string | undefined): raw is string {
  return raw !== undefined && raw !== "";
}

export function str(
  env: string,
  description: string,
  opts: { default?: string; minLength?: number; check?: (value: string) => string | null } = {},
): Field<string> {
  return field(env, description, (raw) => {
    const value = present(raw) ? raw : opts.default;
    if (value === undefined) throw new Error("is required");
    if (opts.minLength !== undefined && value.length < opts.minLength) {
      throw new Error(`must be at least ${opts.minLength} characters long`);
    }
    const problem = opts.check?.(value);
    if (problem) throw new Error(problem);
    return value;
  });
}

export function optionalStr(env: string, description: string): Field<string | undefined> {
  return field(env, description, (raw) => (present(raw) ? raw : undefined));
}

export function int(env: string, description: string, opts: { default?: number; min?: number; max?: number } = {}): Field<number> {
  return field(env, description, (raw) => {
    if (!present(raw)) {
      if (opts.default === undefined) throw new Error("is required");
      return opts.default;
    }
    if (!/^-?\d+$/.test(raw)) throw new Error(`must be an integer, got "${raw}"`);
    const value = Number(raw);
    if (opts.min !== undefined && value < opts.min) throw new Error(`must be >= ${opts.min}, got ${value}`);
    if (opts.max !== undefined && value > opts.max) throw new Error(`must be <= ${opts.max}, got ${value}`);
    return value;
  });
}

export function oneOf<const T extends string>(env: string, description: string, values: readonly T[], defaultValue?: T): Field<T> {
  return field(env, description, (raw) => {
    const value = present(raw) ? raw : defaultValue;
    if (value === undefined) throw new Error(`is required (one of ${values.join(", ")})`);
    if (!(values as readonly string[]).includes(value)) throw new Error(`must be one of ${values.join(", ")}, got "${value}"`);
    return value as T;
  });
}

export function url(env: string, description: string, opts: { default?: string; protocols?: readonly string[] } = {}): Field<string> {
  return field(env, description, (raw) => {
    const value = present(raw) ? raw : opts.default;
    if (value === undefined) throw new Error("is required");
    let parsed: URL;
    try {
      parsed = new URL(value);
    } catch {
      throw new Error(`must be a URL, got "${value}"`);
    }
    if (opts.protocols && !opts.protocols.includes(parsed.protocol)) {
      throw new Error(`must use ${opts.protocols.join(" or ")}, got "${parsed.protocol}"`);
    }
    return value.replace(/\/+$/, "");
  });
}

/**
 * One URL or a comma-separated list of them (the replicas of a service, tried in turn by the RPC clients); each is
 * checked as `url` checks one. The value keeps the list form, trailing slashes removed: "http://a:1,http://b:1".
 */
export function urlList(env: string, description: string, opts: { default?: string; protocols?: readonly string[] } = {}): Field<string> {
  const one = url(env, description, { protocols: opts.protocols });
  return field(env, description, (raw) => {
    const value = present(raw) ? raw : opts.default;
    if (value === undefined) throw new Error("is required");
    const parts = value.split(",").map((part) => part.trim());
    if (parts.some((part) => part === "")) throw new Error(`must be a URL or a comma-separated list of URLs, got "${value}"`);
    return parts.map((part) => one.parse(part)).join(",");
  });
}

export function optionalUrl(env: string, description: string): Field<string | undefined> {
  const inner = url(env, description);
  return field(env, description, (raw) => (present(raw) ? inner.parse(raw) : undefined));
}

export interface MasterKey {
  readonly id: string;
  readonly key: Buffer;
}

/**
 * `VESTIBULE_MASTER_KEYS=<id>:<base64 of 32 bytes>[,<id>:<base64>...]`. The first key wraps new data keys; the
 * others only unwrap data keys written before a rotation.
 */
export function masterKeys(env: string, description: string): Field<readonly MasterKey[]> {
  return field(env, description, (raw) => {
    if (!present(raw)) throw new Error("is required (format <id>:<base64 of 32 bytes>[,...])");
    const keys = raw.split(",").map((part, i) => {
      const sep = part.indexOf(":");
      if (sep <= 0) throw new Error(`entry ${i + 1} must look like <id>:<base64 key>`);
      const id = part.slice(0, sep).trim();
      const key = Buffer.from(part.slice(sep + 1).trim(), "base64");
      if (!/^[A-Za-z0-9_-]{1,32}$/.test(id)) throw new Error(`entry ${i + 1}: key id must be 1-32 letters, digits, _ or -`);
      if (key.length !== 32) throw new Error(`entry ${i + 1} (${id}): key must be 32 bytes of base64, got ${key.length} bytes`);
      return { id, key };
    });
    const ids = new Set(keys.map((k) => k.id));
    if (ids.size !== keys.length) throw new Error("key ids must be unique");
    return keys;
  });
}

export type ConfigSpec = Readonly<Record<string, Field<unknown>>>;
export type ConfigOf<S extends ConfigSpec> = { readonly [K in keyof S]: S[K] extends Field<infer T> ? T : never };

/** Reads and validates every field; throws ConfigError listing all problems at once. */
export function readConfig<S extends ConfigSpec>(spec: S, env: Env = process.env): ConfigOf<S> {
  const problems: string[] = [];
  const out: Record<string, unknown> = {};
  for (const [name, f] of Object.entries(spec)) {
    try {
      out[name] = f.parse(env[f.env]);
    } catch (err) {
      problems.push(`${f.env} ${(err as Error).message} (${f.description})`);
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return out as ConfigOf<S>;
}

/** Markdown table of a spec, for READMEs and `--help`. */
export function describeConfig(spec: ConfigSpec): string {
  return Object.values(spec)
    .map((f) => `| \`${f.env}\` | ${f.description} |`)
    .join("\n");
}

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "::1", "localhost", "[::1]"]);

/**
 * Development mode turns on conveniences meant for one laptop (the development mailbox that shows every e-mail, the
 * development override key, stack traces in 500 answers). A process in development mode that listens on anything but
 * loopback is refused at start-up, so forgetting `VESTIBULE_MODE` on a server cannot expose them. Production is the
 * default; `npm start` and the test supports set development explicitly.
 */
export function assertDevelopmentOnLoopback(config: { readonly mode: string; readonly host: string }): void {
  if (config.mode === "development" && !LOOPBACK_HOSTS.has(config.host) && !/^127\.\d+\.\d+\.\d+$/.test(config.host)) {
    throw new ConfigError([`VESTIBULE_MODE=development may only listen on loopback (HOST is ${config.host}); set VESTIBULE_MODE=production`]);
  }
}
