/**
 * Security headers of the hosted pages and the dashboard (issue 18), sent by the frontends server (static-server.ts).
 *
 * Every answer: `x-content-type-options: nosniff`, `referrer-policy: strict-origin-when-cross-origin`, and in
 * production `strict-transport-security` (browsers honour it only over https, where a production deployment serves).
 *
 * HTML pages also get a Content-Security-Policy without `unsafe-inline` or `unsafe-eval` for scripts: scripts come from
 * this origin (the app's bundles and the Module Federation remotes served here), from the origins of remotes that the
 * run-time manifest places on other servers, and from Stripe.js's origin (js.stripe.com, or the local Stripe server in
 * development; it also gets requests and frames), plus the page's own inline scripts by their SHA-256 hash (the theme script of the HTML template, computed from the file served, so a
 * rebuilt page keeps working). Styles allow inline (`style` attributes of React components, the template's `<style>`);
 * data requests go to this origin and the gateway (`apiUrl` of /config.json); images may come from anywhere over
 * https (profile pictures, OAuth avatars) and data:/blob: URLs. `frame-ancestors 'none'` (and the older
 * `x-frame-options: DENY`) stop other sites framing the pages (clickjacking). E-mail previews are `srcdoc` iframes
 * with `sandbox`: they inherit this policy, so e-mail HTML can run no script.
 *
 * Cookies: the frontends server sets none. The SDK in the pages keeps its refresh and access tokens in cookies named by
 * the Stack Auth wire contract (`stack-refresh-<project id>`, `stack-access`), so a `__Host-` prefix is not possible
 * without breaking the published SDK; they are written with `path=/`, `samesite=lax`, and `secure` on https pages.
 */
import { createHash } from "node:crypto";

export const BASE_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "x-content-type-options": "nosniff",
  "referrer-policy": "strict-origin-when-cross-origin",
};

/** One year, with subdomains: what browsers' preload lists ask for. */
export const HSTS_VALUE = "max-age=31536000; includeSubDomains";

/** The CSP hash sources of the inline scripts (`<script>` without `src`) of an HTML document. */
export function inlineScriptHashes(html: string): string[] {
  const hashes: string[] = [];
  for (const m of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script\s*>/gi)) {
    if (/\bsrc\s*=/i.test(m[1]!)) continue;
    hashes.push(`'sha256-${createHash("sha256").update(m[2]!, "utf8").digest("base64")}'`);
  }
  return hashes;
}

/** The origin of `url` for a CSP source list, or undefined when it is not an absolute http(s) URL. */
function originOf(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const u = new URL(url);
    return u.protocol === "http:" || u.protocol === "https:" ? u.origin : undefined;
  } catch {
    return undefined;
  }
}

export interface PageSecurityOptions {
  readonly html: string;
  readonly apiUrl?: string;
  readonly production?: boolean;
  /** URLs of remotes' mf-manifest.json (the run-time manifest's entries): their origins may serve scripts. */
  readonly remoteEntries?: readonly string[];
  /** Stripe.js's URL (`stripe.jsUrl` of /config.json), when payments are set up. */
  readonly stripeJsUrl?: string;
  /** Other gateways the pages talk to (a standalone area's `dev-config.json` names its own `apiUrl`). */
  readonly otherApiUrls?: readonly string[];
}

/** Distinct origins of absolute http(s) URLs (relative ones are this origin, 'self'). */
function originsOf(urls: readonly (string | undefined)[]): string[] {
  return [...new Set(urls.map(originOf).filter((o): o is string => o !== undefined))];
}

/** Stripe.js loads from its origin and talks to Stripe's API and frames (real Stripe), or to its own server (local). */
function stripeSources(jsUrl: string | undefined): { script: string[]; connect: string[]; frame: string[] } {
  const origin = originOf(jsUrl);
  if (!origin) return { script: [], connect: [], frame: [] };
  if (origin === "https://js.stripe.com") {
    return { script: [origin], connect: ["https://api.stripe.com"], frame: [origin, "https://hooks.stripe.com"] };
  }
  return { script: [origin], connect: [origin], frame: [origin] };
}

/** The Content-Security-Policy of an HTML page whose inline scripts are `html`'s. */
export function contentSecurityPolicy(options: PageSecurityOptions): string {
  const api = originOf(options.apiUrl);
  const remotes = originsOf(options.remoteEntries ?? []);
  const stripe = stripeSources(options.stripeJsUrl);
  const directives: Record<string, string[]> = {
    "default-src": ["'self'"],
    "script-src": ["'self'", ...remotes, ...stripe.script, ...inlineScriptHashes(options.html)],
    "style-src": ["'self'", "'unsafe-inline'"],
    // Development also allows http images (the development identity provider's pictures on loopback).
    "img-src": ["'self'", "data:", "blob:", "https:", ...(options.production ? [] : ["http:"])],
    "font-src": ["'self'", "data:"],
    "connect-src": [...new Set(["'self'", ...(api ? [api] : []), ...originsOf(options.otherApiUrls ?? []), ...remotes, ...stripe.connect])],
    "frame-src": ["'self'", ...stripe.frame],
    "object-src": ["'none'"],
    "base-uri": ["'self'"],
    "frame-ancestors": ["'none'"],
  };
  return Object.entries(directives)
    .map(([name, sources]) => `${name} ${sources.join(" ")}`)
    .join("; ");
}

/** The headers of an HTML page. */
export function pageSecurityHeaders(options: PageSecurityOptions): Record<string, string> {
  return { "content-security-policy": contentSecurityPolicy(options), "x-frame-options": "DENY" };
}
