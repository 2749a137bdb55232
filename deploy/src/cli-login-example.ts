/**
 * A minimal command-line login against Vestibule's public API, without any SDK: what a CLI tool does to sign its user
 * in through the browser.
 *
 *   node --import tsx deploy/src/cli-login-example.ts --api http://localhost:8102 --project <project id> \
 *     --key <publishable client key> [--app http://localhost:8101] [--interval-ms 2000] [--expires-in-ms 600000] \
 *     [--token-file <path>] [--json]
 *
 * 1. `POST /api/v1/auth/cli` starts a login: a polling code (kept by the CLI) and a login code (for the browser).
 * 2. It prints the confirmation link `<app>/handler/cli-auth-confirm?login_code=<login code>` and waits: the user opens
 *    it in a browser where they are signed in, and the page completes the login (`POST /api/v1/auth/cli/complete`).
 * 3. Meanwhile it polls `POST /api/v1/auth/cli/poll` every interval: 200 `waiting` → keep polling; 201 `success` →
 *    the refresh token of the CLI's own session; `expired` / `used` → give up.
 * 4. It exchanges the refresh token for an access token and shows who signed in. The refresh token goes to
 *    `--token-file` (mode 0600) when given, else to stdout.
 *
 * With `--json` every step is one JSON line on stdout (`started` with the link and the polling code, `signed_in`,
 * `failed`), for scripts and tests. Exit status: 0 signed in, 1 expired / used / failed.
 */
import { writeFileSync } from "node:fs";

interface Options {
  api: string;
  project: string;
  key: string;
  app: string;
  intervalMs: number;
  expiresInMs?: number;
  tokenFile?: string;
  json: boolean;
}

function parseArgs(argv: string[]): Options {
  const o: Partial<Options> = { app: "http://localhost:8101", intervalMs: 2000, json: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    if (a === "--api") o.api = next();
    else if (a === "--project") o.project = next();
    else if (a === "--key") o.key = next();
    else if (a === "--app") o.app = next();
    else if (a === "--interval-ms") o.intervalMs = Number(next());
    else if (a === "--expires-in-ms") o.expiresInMs = Number(next());
    else if (a === "--token-file") o.tokenFile = next();
    else if (a === "--json") o.json = true;
    else throw new Error(`unknown option ${a}`);
  }
  o.api ??= process.env.VESTIBULE_API_URL;
  o.project ??= process.env.VESTIBULE_PROJECT_ID;
  o.key ??= process.env.VESTIBULE_PUBLISHABLE_CLIENT_KEY;
  if (!o.api || !o.project || !o.key) throw new Error("--api, --project and --key are required (or VESTIBULE_API_URL, VESTIBULE_PROJECT_ID, VESTIBULE_PUBLISHABLE_CLIENT_KEY)");
  if (!Number.isFinite(o.intervalMs) || o.intervalMs! < 10) throw new Error("--interval-ms must be at least 10");
  return o as Options;
}

async function api(o: Options, path: string, body: unknown, extraHeaders: Record<string, string> = {}): Promise<{ status: number; json: any }> {
  const res = await fetch(`${o.api.replace(/\/+$/, "")}/api/v1${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: {
      "content-type": "application/json",
      "x-stack-project-id": o.project,
      "x-stack-access-type": "client",
      "x-stack-publishable-client-key": o.key,
      ...extraHeaders,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = { error: text };
  }
  return { status: res.status, json };
}

async function main(): Promise<number> {
  const o = parseArgs(process.argv.slice(2));
  const say = (event: Record<string, unknown>, human: string) => process.stdout.write(o.json ? `${JSON.stringify(event)}\n` : `${human}\n`);

  const started = await api(o, "/auth/cli", o.expiresInMs === undefined ? {} : { expires_in_millis: o.expiresInMs });
  if (started.status !== 200) {
    say({ event: "failed", status: started.status, error: started.json }, `Could not start the login (${started.status}): ${JSON.stringify(started.json)}`);
    return 1;
  }
  const { polling_code: pollingCode, login_code: loginCode, expires_at: expiresAt } = started.json as Record<string, string>;
  const link = `${o.app.replace(/\/+$/, "")}/handler/cli-auth-confirm?login_code=${encodeURIComponent(loginCode!)}`;
  say(
    { event: "started", login_url: link, expires_at: expiresAt, polling_code: pollingCode },
    `Open this link in a browser where you are signed in, and confirm:\n\n  ${link}\n\nWaiting (the link expires at ${expiresAt})...`,
  );

  for (;;) {
    await new Promise((r) => setTimeout(r, o.intervalMs));
    const poll = await api(o, "/auth/cli/poll", { polling_code: pollingCode });
    const status = (poll.json as { status?: string }).status;
    if (poll.status === 200 && status === "waiting") continue;
    if (poll.status === 201 && status === "success") {
      const refreshToken = (poll.json as { refresh_token: string }).refresh_token;
      const refreshed = await api(o, "/auth/sessions/current/refresh", {}, { "x-stack-refresh-token": refreshToken });
      const me = await api(o, "/users/me", undefined, { "x-stack-access-token": (refreshed.json as { access_token: string }).access_token });
      const user = me.json as { id: string; primary_email: string | null };
      if (o.tokenFile) writeFileSync(o.tokenFile, `${refreshToken}\n`, { mode: 0o600 });
      say(
        { event: "signed_in", user_id: user.id, primary_email: user.primary_email, ...(o.tokenFile ? { token_file: o.tokenFile } : { refresh_token: refreshToken }) },
        `Signed in as ${user.primary_email ?? user.id}.${o.tokenFile ? ` Refresh token saved to ${o.tokenFile}.` : `\nRefresh token: ${refreshToken}`}`,
      );
      return 0;
    }
    const reason = status === "expired" ? "CLI authentication request expired. Please try again." : status === "used" ? "This authentication token has already been used." : `Unexpected answer ${poll.status}: ${JSON.stringify(poll.json)}`;
    say({ event: "failed", status: status ?? poll.status, error: reason }, reason);
    return 1;
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`cli-login-example: ${(err as Error).message}\n`);
    process.exit(2);
  },
);
