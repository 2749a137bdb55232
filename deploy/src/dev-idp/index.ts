/**
 * The development identity provider: a local OpenID provider built on `oidc-provider` (a certified implementation)
 * with a small login page where one picks or types a test identity (e-mail, name, whether the e-mail is verified) or
 * denies access. `npm start` runs it in development mode and points the shared keys of every provider type at it, so
 * "Sign in with Google" works with nothing configured; the integration tests use it as the real third party.
 * Never started in production mode.
 *
 * One confidential client (`client_secret_post`, PKCE required, refresh tokens with `offline_access`) accepts any
 * redirect URI that is a Vestibule OAuth callback (`.../api/v1/auth/oauth/callback/<provider>`). Identities live in
 * memory (their subject is derived from the e-mail, so a returning identity keeps its account id across restarts).
 */
import { createHash, randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair } from "jose";
import Provider, { type Configuration } from "oidc-provider";
import { loginPage } from "./page.ts";

export const DEV_IDP_CLIENT_ID = "vestibule-dev";
/** Extra scopes the provider grants when asked (connected accounts ask for them with `provider_scope`). */
export const DEV_IDP_EXTRA_SCOPES = ["repo", "calendar", "drive"];

export interface DevIdentity {
  readonly email: string;
  readonly name: string | null;
  readonly emailVerified: boolean;
  readonly picture?: string | null;
}

export interface DevIdentityProvider {
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** `VESTIBULE_OAUTH_SHARED_KEYS` value that points every provider type's shared keys here. */
  readonly sharedKeysEnv: string;
  /** The subject (provider account id) of an e-mail. */
  accountIdOf(email: string): string;
  stop(): Promise<void>;
}

export function devAccountId(email: string): string {
  return `dev-${createHash("sha256").update(email.trim().toLowerCase()).digest("hex").slice(0, 24)}`;
}

const CALLBACK_PATH = /\/api\/(v1|latest)\/auth\/oauth\/callback\/[a-z0-9_:-]+$/;

async function readForm(req: IncomingMessage): Promise<Record<string, string>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > 64 * 1024) throw new Error("form too large");
    chunks.push(c as Buffer);
  }
  return Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString("utf8")));
}

function send(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { "content-type": type, "cache-control": "no-store" });
  res.end(body);
}

/** Starts the provider on `host:port` (port 0 = a free one). `clientSecret` defaults to a random one. */
export async function startDevIdentityProvider(opts: { host?: string; port?: number; clientSecret?: string; publicHost?: string } = {}): Promise<DevIdentityProvider> {
  const host = opts.host ?? "127.0.0.1";
  const clientSecret = opts.clientSecret ?? randomBytes(24).toString("base64url");
  const server: Server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const issuer = `http://${opts.publicHost ?? (host === "0.0.0.0" ? "127.0.0.1" : host)}:${port}`;
  const identities = new Map<string, DevIdentity>();
  // A signing key of this run (ID tokens); nothing outlives the process.
  const { privateKey } = await generateKeyPair("RS256", { extractable: true });
  const signingJwk = { ...(await exportJWK(privateKey)), alg: "RS256", use: "sig", kid: randomBytes(6).toString("hex") };

  const configuration: Configuration = {
    clients: [
      {
        client_id: DEV_IDP_CLIENT_ID,
        client_secret: clientSecret,
        redirect_uris: ["http://localhost:8102/api/v1/auth/oauth/callback/google"],
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_post",
      },
    ],
    scopes: ["openid", "offline_access", "email", "profile", ...DEV_IDP_EXTRA_SCOPES],
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name", "picture"] },
    pkce: { required: () => true },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    cookies: { keys: [randomBytes(32).toString("base64url")] },
    jwks: { keys: [signingJwk as never] },
    ttl: { AccessToken: 3600, AuthorizationCode: 300, IdToken: 3600, RefreshToken: 14 * 24 * 3600, Interaction: 3600, Session: 3600, Grant: 14 * 24 * 3600 },
    issueRefreshToken: async (_ctx, client, code) => client.grantTypeAllowed("refresh_token") && code.scopes.has("offline_access"),
    async findAccount(_ctx, sub) {
      return {
        accountId: sub,
        async claims() {
          const id = identities.get(sub);
          return id ? { sub, email: id.email, email_verified: id.emailVerified, name: id.name ?? undefined, picture: id.picture ?? undefined } : { sub };
        },
      };
    },
    renderError(ctx, out) {
      ctx.type = "html";
      ctx.body = `<!doctype html><title>Development identity provider</title><pre>${String(out.error)}: ${String(out.error_description ?? "")}</pre>`;
    },
  };
  const provider = new Provider(issuer, configuration);
  // Any Vestibule OAuth callback on any host is a valid redirect URI of the development client.
  const clientProto = provider.Client.prototype as unknown as { redirectUriAllowed(uri: string): boolean };
  clientProto.redirectUriAllowed = (uri: string) => {
    try {
      const u = new URL(uri);
      return (u.protocol === "http:" || u.protocol === "https:") && CALLBACK_PATH.test(u.pathname);
    } catch {
      return false;
    }
  };
  const oidcHandler = provider.callback();

  async function interaction(req: IncomingMessage, res: ServerResponse, uid: string, action: string | undefined): Promise<void> {
    const details = await provider.interactionDetails(req, res);
    if (details.uid !== uid) return send(res, 400, "text/plain", "interaction mismatch");
    if (req.method === "GET" && !action) {
      return send(res, 200, "text/html; charset=utf-8", loginPage({ uid, clientId: String(details.params.client_id ?? ""), scope: String(details.params.scope ?? "") }));
    }
    if (req.method !== "POST") return send(res, 405, "text/plain", "method not allowed");
    const form = await readForm(req);
    if (action === "deny") {
      await provider.interactionFinished(req, res, { error: "access_denied", error_description: "The user denied access." }, { mergeWithLastSubmission: false });
      return;
    }
    const email = (form.email ?? "").trim().toLowerCase();
    if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) return send(res, 400, "text/html; charset=utf-8", loginPage({ uid, clientId: "", scope: "", error: "Enter an e-mail address." }));
    const accountId = devAccountId(email);
    identities.set(accountId, { email, name: form.name?.trim() || null, emailVerified: form.email_verified !== "false", picture: form.picture || null });
    const grant = new provider.Grant({ accountId, clientId: String(details.params.client_id) });
    const scope = String(details.params.scope ?? "");
    grant.addOIDCScope(scope);
    const claims = details.params.claims ? Object.keys(JSON.parse(String(details.params.claims)) as object) : [];
    if (claims.length) grant.addOIDCClaims(claims);
    const grantId = await grant.save();
    await provider.interactionFinished(req, res, { login: { accountId }, consent: { grantId } }, { mergeWithLastSubmission: false });
  }

  server.on("request", (req, res) => {
    const url = new URL(req.url ?? "/", issuer);
    const m = /^\/interaction\/([A-Za-z0-9_-]+)(?:\/(login|deny))?$/.exec(url.pathname);
    if (!m) return oidcHandler(req, res);
    interaction(req, res, m[1]!, m[2]).catch((err: unknown) => {
      if (!res.headersSent) send(res, 400, "text/plain", `The login step failed: ${(err as Error).message}`);
    });
  });

  return {
    issuer,
    clientId: DEV_IDP_CLIENT_ID,
    clientSecret,
    sharedKeysEnv: JSON.stringify({ "*": { client_id: DEV_IDP_CLIENT_ID, client_secret: clientSecret, issuer } }),
    accountIdOf: devAccountId,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
