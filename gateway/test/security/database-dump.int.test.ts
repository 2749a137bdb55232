/**
 * A stolen database dump reveals no secret: a test database is populated through the public API and the published
 * SDK (passwords, sessions, user API keys, a TOTP-protected user, a pending CLI login, data-vault values, the
 * project's own keys), dumped with `pg_dump` (every schema, data included), and the dump is searched for every known
 * secret in every usual encoding. None may appear.
 */
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generate } from "otplib";
import { StackServerApp } from "@stackframe/js";
import { createPool } from "@vestibule/shared/db";
import { call, headersFor, startStack, type Stack } from "../support.ts";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ auth: true, vault: true });
});
afterAll(async () => {
  await stack?.stop();
});

const run = promisify(execFile);

/** RFC 4648 base32 (how authenticator apps show TOTP secrets). */
function base32(bytes: Uint8Array): string {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  let bits = 0;
  let value = 0;
  let out = "";
  for (const b of bytes) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += alphabet[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += alphabet[(value << (5 - bits)) & 31];
  return out;
}

/**
 * `pg_dump` of the whole database (schemas and data) as text. Where the machine's pg_dump cannot dump this server
 * (none installed, or older than the embedded Postgres a local run without DATABASE_URL uses), every row of every
 * table is exported with SQL instead, in the same `COPY <schema>.<table>` sections; CI always uses pg_dump.
 */
async function pgDump(url: string): Promise<string> {
  try {
    const { stdout } = await run("pg_dump", ["--no-owner", "--no-privileges", url], { maxBuffer: 512 * 1024 * 1024 });
    return stdout;
  } catch (err) {
    const message = `${(err as { stderr?: string }).stderr ?? ""} ${(err as Error).message}`;
    if (process.env.CI === "true" || !/server version mismatch|ENOENT/.test(message)) throw err;
    process.stderr.write(`pg_dump cannot dump this server (${message.trim().split("\n")[0]}); exporting every table with SQL instead\n`);
    return sqlDump(url);
  }
}

async function sqlDump(url: string): Promise<string> {
  const pool = createPool({ connectionString: url, schema: "public", max: 1 });
  try {
    const { rows: tables } = await pool.query<{ schema: string; name: string }>(
      `SELECT table_schema AS schema, table_name AS name FROM information_schema.tables
       WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema') ORDER BY 1, 2`,
    );
    const out: string[] = [];
    for (const t of tables) {
      out.push(`COPY ${t.schema}.${t.name} (dump)`);
      const { rows } = await pool.query<{ row: string }>(`SELECT row_to_json(x)::text AS row FROM "${t.schema}"."${t.name}" x`);
      for (const r of rows) out.push(r.row);
    }
    return out.join("\n");
  } finally {
    await pool.end();
  }
}

describe("a stolen database dump", () => {
  it("contains no API key, refresh token, TOTP secret, password or vault plaintext", async () => {
    const admin = headersFor(stack.demo, "admin");
    const client = headersFor(stack.demo, "client");
    await call(stack, "PATCH", "/api/v1/internal/projects/current", { headers: admin, body: { config: { allow_user_api_keys: true } } });
    await call(stack, "PATCH", "/api/v1/internal/config/override", {
      headers: admin,
      body: { config_override_string: JSON.stringify({ "dataVault.stores.dump": { displayName: "Dump test" } }) },
    });
    const secrets: Record<string, string> = {};

    // A user with a password, sessions and API keys.
    const password = `pw-${randomBytes(12).toString("hex")}`;
    const email = `dump-${randomBytes(4).toString("hex")}@example.com`;
    const up = await call(stack, "POST", "/api/v1/auth/password/sign-up", {
      headers: client,
      body: { email, password, verification_callback_url: "http://localhost:3000/handler/email-verification" },
    });
    expect(up.status).toBe(200);
    secrets.password = password;
    secrets["refresh token (sign-up)"] = up.json.refresh_token;
    const me = { ...client, "x-stack-access-token": up.json.access_token };
    for (const isPublic of [false, true]) {
      const key = await call(stack, "POST", "/api/v1/user-api-keys", { headers: me, body: { user_id: "me", description: "dumped", expires_at_millis: null, is_public: isPublic } });
      expect(key.status).toBe(200);
      secrets[`${isPublic ? "public" : "secret"} API key`] = key.json.value;
      secrets[`${isPublic ? "public" : "secret"} API key's random part`] = (key.json.value as string).slice(3, 48);
    }

    // A user with TOTP who signed in with both factors.
    const totpSecret = randomBytes(20);
    expect((await call(stack, "PATCH", "/api/v1/users/me", { headers: me, body: { totp_secret_base64: totpSecret.toString("base64") } })).status).toBe(200);
    secrets["TOTP secret (base64)"] = totpSecret.toString("base64");
    secrets["TOTP secret (base64url)"] = totpSecret.toString("base64url");
    secrets["TOTP secret (hex)"] = totpSecret.toString("hex");
    secrets["TOTP secret (base32)"] = base32(totpSecret);
    secrets["TOTP secret (base32, lower case)"] = base32(totpSecret).toLowerCase();
    const attempt = await call(stack, "POST", "/api/v1/auth/password/sign-in", { headers: client, body: { email, password } });
    const into = Date.now() % 30_000;
    if (into > 27_000) await new Promise((r) => setTimeout(r, 30_000 - into + 50));
    const mfa = await call(stack, "POST", "/api/v1/auth/mfa/sign-in", {
      headers: client,
      body: { type: "totp", totp: await generate({ secret: totpSecret, epoch: Math.floor(Date.now() / 1000) }), code: attempt.json.details.attempt_code },
    });
    expect(mfa.status).toBe(200);
    secrets["refresh token (MFA sign-in)"] = mfa.json.refresh_token;

    // A CLI login completed by the browser but not collected yet: its refresh token waits in the database.
    const cli = await call(stack, "POST", "/api/v1/auth/cli", { headers: client, body: {} });
    expect((await call(stack, "POST", "/api/v1/auth/cli/complete", { headers: client, body: { login_code: cli.json.login_code, refresh_token: mfa.json.refresh_token } })).status).toBe(200);
    secrets["CLI polling code"] = cli.json.polling_code;
    secrets["CLI login code"] = cli.json.login_code;

    // Data vault: through the SDK (client-side encryption) and raw, with known wire values.
    const server = new StackServerApp({
      baseUrl: stack.url,
      projectId: stack.demo.projectId,
      publishableClientKey: stack.demo.publishableClientKey,
      secretServerKey: stack.demo.secretServerKey,
      tokenStore: "memory",
      noAutomaticPrefetch: true,
    } as never);
    const vaultPlaintext = `plaintext-${randomBytes(12).toString("hex")}`;
    const vaultKey = `key-${randomBytes(6).toString("hex")}`;
    const vaultSecret = `secret-${randomBytes(12).toString("hex")}`;
    await (await server.getDataVaultStore("dump")).setValue(vaultKey, vaultPlaintext, { secret: vaultSecret });
    secrets["vault plaintext"] = vaultPlaintext;
    secrets["vault key"] = vaultKey;
    secrets["vault client secret"] = vaultSecret;
    const wireKey = randomBytes(32).toString("base64");
    const wireValue = `AQA${randomBytes(40).toString("base64")}`;
    expect((await call(stack, "POST", "/api/v1/data-vault/stores/dump/set", { headers: headersFor(stack.demo, "server"), body: { hashed_key: wireKey, encrypted_value: wireValue } })).status).toBe(200);
    secrets["vault hashed key as sent"] = wireKey;
    secrets["vault encrypted value as sent"] = wireValue;

    // The project's own keys.
    secrets["publishable client key"] = stack.demo.publishableClientKey;
    secrets["secret server key"] = stack.demo.secretServerKey;
    secrets["super secret admin key"] = stack.demo.superSecretAdminKey;

    const dump = await pgDump(stack.db.url);
    // The dump is real: it has the tables and rows these secrets live in.
    for (const table of ["auth.api_keys", "auth.sessions", "auth.totp_credentials", "auth.cli_logins", "vault.entries", "vault.project_keys", "identity.users"]) {
      expect(dump).toContain(`COPY ${table} `);
    }
    expect(dump).toContain(email);

    // The CLI's refresh token, collected only now, was in the database (encrypted) when the dump was taken.
    const poll = await call(stack, "POST", "/api/v1/auth/cli/poll", { headers: client, body: { polling_code: cli.json.polling_code } });
    expect(poll.status).toBe(201);
    secrets["CLI refresh token (pending at dump time)"] = poll.json.refresh_token;

    const found = Object.entries(secrets).filter(([, value]) => dump.includes(value));
    expect(found.map(([name]) => name)).toEqual([]);
    expect(Object.keys(secrets).length).toBeGreaterThanOrEqual(20);
  });
});
