/**
 * The local Stripe-compatible HTTP server: authentication (secret key; publishable key on the Stripe.js routes),
 * form-encoded parameters, `Stripe-Account` scoping, `Idempotency-Key` replay, `expand[]`, Stripe's error shape, and
 * the pages around the API (Stripe.js at /v3, the onboarding page, hosted invoices, the event log).
 */
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Ctx, LocalStripeState } from "./context.ts";
import { completeOnboarding, onboardingPage } from "./connect.ts";
import { ROUTES } from "./routes.ts";
import { StripeApiError, type StripeObject } from "./store.ts";
import { stripeJsSource } from "./stripe-js.ts";
import { publicView } from "./webhooks.ts";

export interface ServerKeys {
  readonly secretKey: string;
  readonly publishableKey: string;
}

/** `a[b][0][c]=1&expand[]=x` → nested objects and arrays, as Stripe (and the SDK's encoder) nest them. */
export function parseForm(body: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(body)) {
    const parts = key.replace(/\]/g, "").split("[");
    let node: Record<string, unknown> | unknown[] = out;
    parts.forEach((part, i) => {
      const last = i === parts.length - 1;
      if (Array.isArray(node)) {
        if (last) node.push(value);
        else {
          const child = {};
          node.push(child);
          node = child;
        }
        return;
      }
      const rec = node as Record<string, unknown>;
      if (last) rec[part] = value;
      else {
        if (typeof rec[part] !== "object" || rec[part] === null) rec[part] = parts[i + 1] === "" ? [] : {};
        node = rec[part] as Record<string, unknown>;
      }
    });
  }
  return out;
}

function expandPath(state: LocalStripeState, value: unknown, path: string[]): unknown {
  if (path.length === 0 || value === null || typeof value !== "object") return value;
  const o = value as Record<string, unknown>;
  if (o.object === "list" || o.object === "search_result") {
    const [head, ...rest] = path;
    if (head === "data") o.data = (o.data as unknown[]).map((d) => expandPath(state, d, rest));
    return o;
  }
  const [head, ...rest] = path as [string, ...string[]];
  if (head === "confirmation_secret" && o._confirmation_secret) o.confirmation_secret = o._confirmation_secret;
  let child = o[head];
  if (typeof child === "string") child = state.store.find(child)?.obj ?? child;
  if (child && typeof child === "object") o[head] = expandPath(state, structuredClone(child), rest);
  return o;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > 1024 * 1024) throw new StripeApiError(413, "invalid_request_error", "Request body too large.");
    chunks.push(c as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

export function createLocalStripeServer(state: LocalStripeState, keys: ServerKeys, events: () => StripeObject[]): Server {
  const idempotent = new Map<string, { status: number; body: string }>();
  const cors = {
    "access-control-allow-origin": "*",
    "access-control-allow-headers": "authorization, content-type, stripe-account, stripe-version, idempotency-key",
    "access-control-allow-methods": "GET, POST, DELETE, OPTIONS",
  };
  const send = (res: ServerResponse, status: number, body: string, type = "application/json", extra: Record<string, string> = {}): void => {
    res.writeHead(status, { "content-type": type, "cache-control": "no-store", "request-id": `req_${randomBytes(8).toString("hex")}`, "stripe-version": state.apiVersion, ...cors, ...extra });
    res.end(body);
  };
  const fail = (res: ServerResponse, err: StripeApiError): void => send(res, err.status, JSON.stringify(publicView(err.toJSON())));

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? "/", "http://local");
    const method = req.method ?? "GET";
    if (method === "OPTIONS") return send(res, 204, "");
    const raw = method === "GET" || method === "DELETE" ? url.search.slice(1) : await readBody(req);

    // The pages around the API.
    if (method === "GET" && (url.pathname === "/v3" || url.pathname === "/v3/")) return send(res, 200, stripeJsSource(state.baseUrl), "text/javascript; charset=utf-8");
    const onboarding = /^\/connect\/onboarding\/([^/]+)$/.exec(url.pathname);
    if (onboarding) {
      const accountId = decodeURIComponent(onboarding[1]!);
      if (method === "GET") return send(res, 200, onboardingPage(accountId, url.searchParams.get("return_url")), "text/html; charset=utf-8");
      completeOnboarding({ state, params: {}, account: null, publishable: false }, accountId);
      state.changed?.();
      const back = parseForm(raw).return_url;
      if (typeof back === "string" && /^https?:\/\//.test(back)) return send(res, 303, "", "text/plain", { location: back });
      return send(res, 200, "<p>Onboarding complete. You can close this page.</p>", "text/html; charset=utf-8");
    }
    const invoicePage = /^\/invoices\/([^/]+)$/.exec(url.pathname);
    if (method === "GET" && invoicePage) {
      const inv = state.store.find(invoicePage[1]!)?.obj;
      if (!inv || inv.object !== "invoice") return send(res, 404, "Not found", "text/plain");
      return send(res, 200, `<!doctype html><title>Invoice ${inv.id}</title><h1>Invoice ${inv.id}</h1><p>Status: ${String(inv.status)}</p><p>Total: ${(inv.total as number) / 100} ${String(inv.currency).toUpperCase()}</p>`, "text/html; charset=utf-8");
    }

    // Authentication.
    const bearer = /^Bearer (.+)$/i.exec(req.headers.authorization ?? "")?.[1] ?? (req.headers.authorization?.startsWith("Basic ") ? Buffer.from(req.headers.authorization.slice(6), "base64").toString().split(":")[0] : undefined);
    if (!bearer) return fail(res, new StripeApiError(401, "invalid_request_error", "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY')."));
    const publishable = bearer === keys.publishableKey;
    if (!publishable && bearer !== keys.secretKey) return fail(res, new StripeApiError(401, "invalid_request_error", `Invalid API Key provided: ${bearer.slice(0, 8)}${"*".repeat(Math.max(bearer.length - 12, 4))}${bearer.slice(-4)}`, { code: "api_key_invalid" }));

    if (method === "GET" && url.pathname === "/v1/events") return send(res, 200, JSON.stringify({ object: "list", data: events().slice().reverse().slice(0, 100), has_more: false, url: "/v1/events" }));
    const eventMatch = /^\/v1\/events\/([^/]+)$/.exec(url.pathname);
    if (method === "GET" && eventMatch && !publishable) {
      const ev = events().find((e) => e.id === eventMatch[1]);
      return ev ? send(res, 200, JSON.stringify(ev)) : fail(res, new StripeApiError(404, "invalid_request_error", `No such event: '${eventMatch[1]}'`, { code: "resource_missing", param: "id" }));
    }

    const route = ROUTES.find((rt) => rt.method === method && rt.pattern.test(url.pathname));
    if (!route) return fail(res, new StripeApiError(404, "invalid_request_error", `Unrecognized request URL (${method}: ${url.pathname}).`));
    if (publishable && !route.publishable) return fail(res, new StripeApiError(401, "invalid_request_error", "This API call cannot be made with a publishable API key. Please use a secret API key."));
    const accountHeader = req.headers["stripe-account"];
    const account = typeof accountHeader === "string" && accountHeader ? accountHeader : null;
    if (account) {
      const acct = state.store.find(account);
      if (!acct || acct.obj.object !== "account") return fail(res, new StripeApiError(403, "invalid_request_error", `The provided key does not have access to account '${account}' (or that account does not exist). Application access may have been revoked.`, { code: "account_invalid" }));
    }
    const idemKey = method === "POST" ? req.headers["idempotency-key"] : undefined;
    const idemId = typeof idemKey === "string" ? `${account ?? ""}:${idemKey}` : undefined;
    if (idemId && idempotent.has(idemId)) {
      const cached = idempotent.get(idemId)!;
      return send(res, cached.status, cached.body, "application/json", { "idempotent-replayed": "true" });
    }
    const params = parseForm(raw);
    const m = route.pattern.exec(url.pathname)!;
    const ctx: Ctx = { state, params, account, publishable };
    let status = 200;
    let body: string;
    try {
      const result = route.handler(ctx, decodeURIComponent(m[1] ?? ""));
      let out = structuredClone(result) as Record<string, unknown>;
      const expand = Array.isArray(params.expand) ? params.expand : params.expand && typeof params.expand === "object" ? Object.values(params.expand) : [];
      for (const p of expand) if (typeof p === "string") out = expandPath(state, out, p.split(".")) as Record<string, unknown>;
      body = JSON.stringify(publicView(out));
    } catch (err) {
      if (!(err instanceof StripeApiError)) throw err;
      status = err.status;
      body = JSON.stringify(publicView(err.toJSON()));
    }
    if (idemId) idempotent.set(idemId, { status, body });
    if (method !== "GET") state.changed?.();
    send(res, status, body);
  };

  return createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (err instanceof StripeApiError) return fail(res, err);
      if (!res.headersSent) fail(res, new StripeApiError(500, "api_error", "An unexpected error occurred in the local Stripe server."));
      process.stderr.write(`local stripe: ${(err as Error).stack ?? String(err)}\n`);
    });
  });
}
