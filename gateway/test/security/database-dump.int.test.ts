/**
 * A stolen database dump reveals no secret: a test database is populated through the public API and the published
 * SDK (passwords, sessions, user API keys, a TOTP-protected user, a pending CLI login, an impersonation ticket,
 * data-vault values, the project's own keys, its SMTP password and OAuth client secret, and the one-time codes of pending e-mail
 * verification, password reset, magic link and team invitation e-mails), dumped with `pg_dump` (every schema, data
 * included: the services' outboxes and the embedded event bus's log hold every event written during the test), and
 * the dump is searched for every known secret in plain text, hex (how bytea columns are dumped), base64 and base64url.
 * None may appear.
 *
 * One table is left out of the search on purpose: `email.dev_mailbox_messages`, the development-only dev mailbox. It
 * is where the e-mails are delivered (the recipients' inbox, not the platform's data) and exists only in development
 * mode. The test checks that the codes are there, which also shows that the search finds them where they are.
 */
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generate } from "otplib";
import { StackServerApp } from "@stackframe/js";
import { createPool } from "@vestibule/shared/db";
import { emailRuntime } from "../../../services/email/src/runtime.ts";
import { call, headersFor, startStack, type Stack } from "../support.ts";
import { codeOf, waitForMail } from "../teams-support.ts";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ auth: true, vault: true, teams: true });
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

/**
 * Where `secret` may appear in a dump besides in plain text: its UTF-8 bytes as hex (bytea columns, e.g. an outbox
 * envelope holding it in a protobuf string field), and as base64 and base64url. A base64 encoding depends on where
 * the secret starts within the encoded value, so each of the three alignments is tried, keeping only the characters
 * that encode the secret's bytes alone.
 */
function encodings(secret: string): { encoding: string; value: string }[] {
  const bytes = Buffer.from(secret, "utf8");
  const out = [
    { encoding: "plain", value: secret },
    { encoding: "hex", value: bytes.toString("hex") },
  ];
  for (let offset = 0; offset < 3; offset++) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString("base64");
    const inner = encoded.slice(Math.ceil((offset * 8) / 6), Math.floor(((offset + bytes.length) * 8) / 6));
    out.push({ encoding: `base64 (offset ${offset})`, value: inner });
    out.push({ encoding: `base64url (offset ${offset})`, value: inner.replace(/\+/g, "-").replace(/\//g, "_") });
  }
  return out;
}

/** The dump without the data section of one table (`COPY <table> ... ;` up to its `\.` terminator). */
function withoutTableData(dump: string, table: string): { rest: string; section: string } {
  const start = dump.indexOf(`COPY ${table} `);
  if (start < 0) return { rest: dump, section: "" };
  const terminator = dump.indexOf("\n\\.\n", start);
  const end = terminator < 0 ? dump.length : terminator + 4;
  return { rest: dump.slice(0, start) + dump.slice(end), section: dump.slice(start, end) };
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
      out.push("\\.");
    }
    return out.join("\n");
  } finally {
    await pool.end();
  }
}

describe("a stolen database dump", () => {
  it("contains no API key, refresh token, TOTP secret, password, SMTP or OAuth secret, one-time code or vault plaintext", async () => {
    const admin = headersFor(stack.demo, "admin");
    const client = headersFor(stack.demo, "client");
    const secrets: Record<string, string> = {};

    // The project's own SMTP server (the dev mailbox, which takes any login, so the e-mails below travel through it)
    // and a standard OAuth provider, with known secrets.
    const smtpPassword = `smtp-${randomBytes(12).toString("hex")}`;
    const oauthClientSecret = `oauth-${randomBytes(12).toString("hex")}`;
    const devMailbox = emailRuntime(stack.email!.ctx).shared!.target;
    const configured = await call(stack, "PATCH", "/api/v1/internal/projects/current", {
      headers: admin,
      body: {
        config: {
          allow_user_api_keys: true,
          email_config: { type: "standard", host: devMailbox.host, port: devMailbox.port, username: "dump", password: smtpPassword, sender_name: "Dump", sender_email: "noreply@dump.example" },
          oauth_providers: [{ id: "github", type: "standard", client_id: "dump-client-id", client_secret: oauthClientSecret }],
        },
      },
    });
    expect(configured.status).toBe(200);
    expect(configured.json.config.email_config.password).toBe(smtpPassword);
    expect(configured.json.config.oauth_providers[0].client_secret).toBe(oauthClientSecret);
    secrets["SMTP password"] = smtpPassword;
    secrets["OAuth client secret"] = oauthClientSecret;
    await call(stack, "PATCH", "/api/v1/internal/config/override", {
      headers: admin,
      body: { config_override_string: JSON.stringify({ "dataVault.stores.dump": { displayName: "Dump test" } }) },
    });

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
    const verification = await waitForMail(stack, email, (m) => m.template === "email_verification");
    expect(verification.from).toContain("noreply@dump.example");
    secrets["e-mail verification code"] = codeOf(verification);
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
    secrets["MFA attempt code"] = attempt.json.details.attempt_code;
    secrets["refresh token (MFA sign-in)"] = mfa.json.refresh_token;

    // A CLI login completed by the browser but not collected yet: its refresh token waits in the database.
    const cli = await call(stack, "POST", "/api/v1/auth/cli", { headers: client, body: {} });
    expect((await call(stack, "POST", "/api/v1/auth/cli/complete", { headers: client, body: { login_code: cli.json.login_code, refresh_token: mfa.json.refresh_token } })).status).toBe(200);
    secrets["CLI polling code"] = cli.json.polling_code;
    secrets["CLI login code"] = cli.json.login_code;

    // An impersonation ticket not exchanged yet (issue 21).
    const ticket = await call(stack, "POST", "/api/v1/auth/impersonation-tickets", { headers: headersFor(stack.demo, "admin"), body: { user_id: mfa.json.user_id } });
    expect(ticket.status).toBe(200);
    secrets["impersonation ticket"] = ticket.json.ticket;

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

    // Pending one-time codes of e-mails: a password reset, a magic link and a team invitation.
    expect((await call(stack, "POST", "/api/v1/auth/password/send-reset-code", { headers: client, body: { email, callback_url: "http://localhost:3000/handler/password-reset" } })).status).toBe(200);
    secrets["password reset code"] = codeOf(await waitForMail(stack, email, (m) => m.template === "password_reset"));
    const otpEmail = `dump-otp-${randomBytes(4).toString("hex")}@example.com`;
    const otp = await call(stack, "POST", "/api/v1/auth/otp/send-sign-in-code", { headers: client, body: { email: otpEmail, callback_url: "http://localhost:3000/handler/magic-link-callback" } });
    expect(otp.status).toBe(200);
    secrets["magic link code"] = codeOf(await waitForMail(stack, otpEmail, (m) => m.template === "magic_link"));
    // The 6-character OTP the e-mail shows is the code's head; on its own (without this nonce, which only the
    // requesting client holds and the database keeps only hashed) it signs nobody in. The e-mail log keeps it in the
    // subject ("Your code is …"), as GET /internal/emails shows it to admins.
    secrets["magic link nonce"] = otp.json.nonce;
    const team = await call(stack, "POST", "/api/v1/teams", { headers: me, body: { display_name: "Dump Team" } });
    expect(team.status).toBe(201);
    const invitee = `dump-invitee-${randomBytes(4).toString("hex")}@example.com`;
    const invited = await call(stack, "POST", "/api/v1/team-invitations/send-code", { headers: me, body: { team_id: team.json.id, email: invitee, callback_url: "http://localhost:3000/handler/team-invitation" } });
    expect(invited.status).toBe(200);
    secrets["team invitation code"] = codeOf(await waitForMail(stack, invitee, (m) => m.template === "team_invitation"));
    const mailedCodes = ["e-mail verification code", "password reset code", "magic link code", "team invitation code"];

    // The project's own keys.
    secrets["publishable client key"] = stack.demo.publishableClientKey;
    secrets["secret server key"] = stack.demo.secretServerKey;
    secrets["super secret admin key"] = stack.demo.superSecretAdminKey;

    const full = await pgDump(stack.db.url);
    // The dump is real: it has the tables and rows these secrets live in, the events that carried them included.
    for (const table of [
      "auth.api_keys",
      "auth.sessions",
      "auth.totp_credentials",
      "auth.cli_logins",
      "auth.verification_codes",
      "teams_permissions.team_invitations",
      "vault.entries",
      "vault.project_keys",
      "identity.users",
      "identity.projects",
      "email.emails",
      "identity.outbox",
      "auth.outbox",
      "teams_permissions.outbox",
      "vestibule_bus.events",
    ]) {
      expect(full).toContain(`COPY ${table} `);
    }
    expect(full).toContain(email);
    for (const outbox of ["identity", "auth", "teams_permissions"]) {
      const section = withoutTableData(full, `${outbox}.outbox`).section;
      const subject = outbox === "identity" ? "identity.project.updated.v1" : `${outbox}.email.requested.v1`;
      expect(section, `${outbox}.outbox holds its ${subject} events`).toContain(subject);
    }
    // The dev mailbox (development only) holds the delivered e-mails: the codes are there, and only there.
    const { rest: dump, section: mailbox } = withoutTableData(full, "email.dev_mailbox_messages");
    for (const name of mailedCodes) expect(mailbox, `the dev mailbox holds the ${name}`).toContain(secrets[name]);

    // The CLI's refresh token, collected only now, was in the database (encrypted) when the dump was taken.
    const poll = await call(stack, "POST", "/api/v1/auth/cli/poll", { headers: client, body: { polling_code: cli.json.polling_code } });
    expect(poll.status).toBe(201);
    secrets["CLI refresh token (pending at dump time)"] = poll.json.refresh_token;

    const found = Object.entries(secrets).flatMap(([name, secret]) =>
      encodings(secret)
        .filter(({ value }) => dump.includes(value))
        .map(({ encoding }) => `${name} (${encoding})`),
    );
    expect(found).toEqual([]);
    expect(Object.keys(secrets).length).toBeGreaterThanOrEqual(28);
  });
});
