/**
 * OAuth flows driven with fetch (no browser) against a stack and the development identity provider: the authorize
 * redirect, the provider's login page (a form post), the callback and the code exchange, with cookies kept per
 * origin like a browser would.
 */
import { createHash, randomBytes } from "node:crypto";
import { ProjectService } from "@vestibule/proto/identity/v1/project_service";
import { ApiKeySetService } from "@vestibule/proto/identity/v1/api_key_service";
import { createServiceClient } from "@vestibule/shared/rpc";
import { startDevIdentityProvider, type DevIdentityProvider } from "../../deploy/src/dev-idp/index.ts";
import { call, startStack, type ApiResponse, type ProjectKeys, type Stack } from "./support.ts";

export const REDIRECT_URI = "http://localhost:3000/handler/oauth-callback";
export const ERROR_URL = "http://localhost:3000/handler/error";

export interface OAuthStack {
  readonly stack: Stack;
  readonly idp: DevIdentityProvider;
  /** A new project (fresh config, so no cache holds an older one) with keys. */
  newProject(config: Record<string, unknown>): Promise<ProjectKeys>;
  stop(): Promise<void>;
}

/** A stack whose auth service knows the development provider: shared keys and every provider type point at it. */
export async function startOAuthStack(): Promise<OAuthStack> {
  const idp = await startDevIdentityProvider();
  const stack = await startStack({
    auth: true,
    env: { VESTIBULE_OAUTH_SHARED_KEYS: idp.sharedKeysEnv, VESTIBULE_OAUTH_ISSUERS: JSON.stringify({ "*": idp.issuer }) },
  });
  const rpc = { baseUrl: stack.env.VESTIBULE_IDENTITY_URL!, caller: "test", secret: stack.env.VESTIBULE_SERVICE_SECRET! };
  const projects = createServiceClient(ProjectService, rpc);
  const keySets = createServiceClient(ApiKeySetService, rpc);
  return {
    stack,
    idp,
    async newProject(config) {
      const { project } = await projects.createProject({ displayName: "OAuth test", configUpdateJson: JSON.stringify({ allow_localhost: true, ...config }) });
      const { apiKeySet } = await keySets.createApiKeySet({
        projectId: project!.id,
        description: "test keys",
        hasPublishableClientKey: true,
        hasSecretServerKey: true,
        hasSuperSecretAdminKey: true,
      });
      return {
        projectId: project!.id,
        publishableClientKey: apiKeySet!.publishableClientKey,
        secretServerKey: apiKeySet!.secretServerKey,
        superSecretAdminKey: apiKeySet!.superSecretAdminKey,
      };
    },
    async stop() {
      await stack.stop();
      await idp.stop();
    },
  };
}

/** Standard keys at the development provider for a provider type. */
export function standardProvider(idp: DevIdentityProvider, id: string): Record<string, string> {
  return { id, type: "standard", client_id: idp.clientId, client_secret: idp.clientSecret };
}

/** A cookie jar per origin, enough for the flows here. */
export class Browser {
  private readonly jars = new Map<string, Map<string, string>>();

  cookieHeader(url: string): string {
    return [...(this.jars.get(new URL(url).origin) ?? new Map<string, string>())].map(([k, v]) => `${k}=${v}`).join("; ");
  }

  has(url: string, name: string): boolean {
    return this.jars.get(new URL(url).origin)?.has(name) ?? false;
  }

  store(url: string, res: Response): void {
    const origin = new URL(url).origin;
    const jar = this.jars.get(origin) ?? new Map<string, string>();
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(";");
      const i = pair!.indexOf("=");
      const name = pair!.slice(0, i).trim();
      const value = pair!.slice(i + 1).trim();
      if (/max-age=0/i.test(c) || value === "") jar.delete(name);
      else jar.set(name, value);
    }
    this.jars.set(origin, jar);
  }

  async fetch(url: string, init: { method?: string; form?: Record<string, string> } = {}): Promise<Response> {
    const headers: Record<string, string> = { cookie: this.cookieHeader(url) };
    let body: string | undefined;
    if (init.form) {
      headers["content-type"] = "application/x-www-form-urlencoded";
      body = new URLSearchParams(init.form).toString();
    }
    const res = await fetch(url, { method: init.method ?? "GET", headers, body, redirect: "manual" });
    this.store(url, res);
    return res;
  }
}

export interface Pkce {
  readonly verifier: string;
  readonly challenge: string;
}

export function pkce(): Pkce {
  const verifier = randomBytes(48).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

export interface AuthorizeOptions {
  readonly type?: "authenticate" | "link";
  readonly token?: string;
  readonly providerScope?: string;
  readonly errorRedirectUrl?: string;
  readonly afterCallbackRedirectUrl?: string;
  readonly redirectUri?: string;
  readonly json?: boolean;
  readonly state?: string;
  readonly pkce?: Pkce;
}

export function authorizePath(keys: ProjectKeys, provider: string, o: AuthorizeOptions = {}): { path: string; state: string; pkce: Pkce } {
  const p = o.pkce ?? pkce();
  const state = o.state ?? randomBytes(12).toString("hex");
  const q = new URLSearchParams({
    client_id: keys.projectId,
    client_secret: keys.publishableClientKey,
    redirect_uri: o.redirectUri ?? REDIRECT_URI,
    scope: "legacy",
    state,
    grant_type: "authorization_code",
    code_challenge: p.challenge,
    code_challenge_method: "S256",
    response_type: "code",
  });
  if (o.type) q.set("type", o.type);
  if (o.token) q.set("token", o.token);
  if (o.providerScope) q.set("provider_scope", o.providerScope);
  if (o.errorRedirectUrl) q.set("error_redirect_url", o.errorRedirectUrl);
  if (o.afterCallbackRedirectUrl) q.set("after_callback_redirect_url", o.afterCallbackRedirectUrl);
  if (o.json) q.set("stack_response_mode", "json");
  return { path: `/api/v1/auth/oauth/authorize/${provider}?${q}`, state, pkce: p };
}

export interface DevLogin {
  readonly email: string;
  readonly name?: string;
  readonly emailVerified?: boolean;
}

/**
 * The provider's part: from its authorization URL through the login page to the redirect back to Vestibule's
 * callback. Returns that callback URL, moved to the stack's gateway (the auth service's public URL is the default one).
 */
export async function atProvider(browser: Browser, stack: Stack, authorizationUrl: string, who: DevLogin | "deny"): Promise<string> {
  let res = await browser.fetch(authorizationUrl);
  let location = new URL(res.headers.get("location")!, authorizationUrl).href;
  if (!/\/interaction\//.test(location)) throw new Error(`expected the login page, got ${res.status} ${location}`);
  const page = await browser.fetch(location);
  if (page.status !== 200) throw new Error(`login page answered ${page.status}`);
  await page.text();
  const form: Record<string, string> = who === "deny" ? {} : { email: who.email, name: who.name ?? "", ...(who.emailVerified === false ? { email_verified: "false" } : {}) };
  res = await browser.fetch(`${location}/${who === "deny" ? "deny" : "login"}`, { method: "POST", form });
  // The provider resumes the authorization (one or two redirects) and then redirects to our callback.
  for (let i = 0; i < 5; i++) {
    location = new URL(res.headers.get("location")!, location).href;
    if (location.includes("/api/v1/auth/oauth/callback/")) {
      const u = new URL(location);
      return `${stack.url}${u.pathname}${u.search}`;
    }
    res = await browser.fetch(location);
  }
  throw new Error("the provider did not redirect back to the callback");
}

export interface FlowResult {
  /** Where the callback sent the browser. */
  readonly location: URL;
  readonly state: string;
  readonly pkce: Pkce;
  readonly browser: Browser;
}

/** authorize → provider login → callback; the callback's redirect. */
export async function runFlow(stack: Stack, keys: ProjectKeys, provider: string, who: DevLogin | "deny", o: AuthorizeOptions = {}): Promise<FlowResult> {
  const browser = new Browser();
  const { path, state, pkce: p } = authorizePath(keys, provider, o);
  const auth = await browser.fetch(stack.url + path);
  let providerUrl: string;
  if (o.json) {
    if (auth.status !== 200) throw new Error(`authorize answered ${auth.status} ${await auth.text()}`);
    providerUrl = ((await auth.json()) as { location: string }).location;
  } else {
    if (auth.status !== 307) throw new Error(`authorize answered ${auth.status} ${await auth.text()}`);
    providerUrl = auth.headers.get("location")!;
  }
  const callbackUrl = await atProvider(browser, stack, providerUrl, who);
  const cb = await browser.fetch(callbackUrl);
  if (cb.status !== 307) throw new Error(`callback answered ${cb.status} ${await cb.text()}`);
  return { location: new URL(cb.headers.get("location")!), state, pkce: p, browser };
}

export async function exchange(stack: Stack, keys: ProjectKeys, code: string, verifier: string, redirectUri = REDIRECT_URI): Promise<ApiResponse> {
  return call(stack, "POST", "/api/v1/auth/oauth/token", {
    rawBody: new URLSearchParams({
      grant_type: "authorization_code",
      code,
      redirect_uri: redirectUri,
      code_verifier: verifier,
      client_id: keys.projectId,
      client_secret: keys.publishableClientKey,
    }).toString(),
    contentType: "application/x-www-form-urlencoded",
  });
}

/** The whole sign-in: flow plus code exchange; the token response. */
export async function oauthSignIn(stack: Stack, keys: ProjectKeys, provider: string, who: DevLogin, o: AuthorizeOptions = {}): Promise<ApiResponse> {
  const flow = await runFlow(stack, keys, provider, who, o);
  const code = flow.location.searchParams.get("code");
  if (!code) throw new Error(`no code in ${flow.location.href}`);
  if (flow.location.searchParams.get("state") !== flow.state) throw new Error("state not carried back");
  return exchange(stack, keys, code, flow.pkce.verifier, o.redirectUri ?? REDIRECT_URI);
}
