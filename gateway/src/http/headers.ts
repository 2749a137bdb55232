import type { FastifyRequest } from "fastify";

/**
 * Request headers of the contract. Every `x-stack-<name>` header is also accepted as `x-hexclave-<name>` (newer
 * published SDKs send that prefix); when both are present the `x-stack-` one wins.
 */
export const HEADER_PREFIXES = ["x-stack-", "x-hexclave-"] as const;

/** The full header names of a contract header under each prefix (built once per name: this runs many times a request). */
const prefixedNames = new Map<string, readonly string[]>();

export function header(req: FastifyRequest, name: string): string | undefined {
  let names = prefixedNames.get(name);
  if (names === undefined) {
    names = HEADER_PREFIXES.map((p) => `${p}${name}`);
    prefixedNames.set(name, names);
  }
  for (const full of names) {
    const v = req.headers[full];
    const value = Array.isArray(v) ? v[0] : v;
    if (value !== undefined) return value;
  }
  return undefined;
}

/** Like `header`, but an empty string counts as absent (the contract treats empty key headers as missing). */
export function nonEmptyHeader(req: FastifyRequest, name: string): string | undefined {
  const v = header(req, name);
  return v === undefined || v === "" ? undefined : v;
}

/** The contract's request headers, for CORS `Access-Control-Allow-Headers`, under both prefixes. */
const CONTRACT_HEADERS = [
  "project-id",
  "branch-id",
  "override-error-status",
  "random-nonce",
  "client-version",
  "disable-artificial-development-delay",
  "development-disable-extended-logging",
  "development-override-key",
  "access-type",
  "publishable-client-key",
  "secret-server-key",
  "super-secret-admin-key",
  "admin-access-token",
  "workflow-token",
  "refresh-token",
  "access-token",
  "allow-anonymous-user",
  "allow-restricted-user",
  "auth",
];

export const CORS_ALLOW_HEADERS = [
  "content-type",
  "authorization",
  ...HEADER_PREFIXES.flatMap((p) => CONTRACT_HEADERS.map((h) => `${p}${h}`)),
  "baggage",
  "sentry-trace",
  "x-vercel-protection-bypass",
  "ngrok-skip-browser-warning",
  // The dashboard's webhook pages (routes/v1/internal-webhooks.ts).
  "x-vestibule-webhook-portal-token",
].join(", ");

export const CORS_EXPOSE_HEADERS = [
  "content-type",
  ...HEADER_PREFIXES.flatMap((p) => [`${p}actual-status`, `${p}known-error`, `${p}request-id`]),
  "retry-after",
].join(", ");
