import type { TestPlatform } from "../src/test-platform.ts";

export type Access = "client" | "server" | "admin";

export interface ApiAnswer {
  readonly status: number;
  readonly json: any;
  readonly text: string;
  /** The x-stack-known-error header, if any. */
  readonly code: string | null;
}

/** The demo project's headers for one access type (x-stack- prefix, keys from the platform's bootstrap). */
export function demoHeaders(tp: TestPlatform, access: Access): Record<string, string> {
  const demo = tp.projects.demo;
  const h: Record<string, string> = {
    "x-stack-project-id": demo.project_id,
    "x-stack-access-type": access,
    "x-stack-publishable-client-key": demo.publishable_client_key,
  };
  if (access === "server") h["x-stack-secret-server-key"] = demo.secret_server_key;
  if (access === "admin") h["x-stack-super-secret-admin-key"] = demo.super_secret_admin_key;
  return h;
}

/** A call to the platform's gateway (`path` below /api/v1) with these headers and the body as JSON. */
export async function callPlatform(
  tp: TestPlatform,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
  options: { timeoutMs?: number } = {},
): Promise<ApiAnswer> {
  const res = await fetch(`${tp.gatewayUrl}/api/v1${path}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    ...(options.timeoutMs ? { signal: AbortSignal.timeout(options.timeoutMs) } : {}),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, json, text, code: res.headers.get("x-stack-known-error") };
}

/** A call to the platform's gateway as the demo project (`path` below /api/v1), with the body as JSON. */
export function callDemo(tp: TestPlatform, method: string, path: string, access: Access, body?: unknown): Promise<ApiAnswer> {
  return callPlatform(tp, method, path, demoHeaders(tp, access), body);
}

/** Options of a published @stackframe/js app (any of the three) as the demo project, tokens in memory. */
export function demoSdkOptions(tp: TestPlatform): never {
  const demo = tp.projects.demo;
  return {
    baseUrl: tp.gatewayUrl,
    projectId: demo.project_id,
    publishableClientKey: demo.publishable_client_key,
    secretServerKey: demo.secret_server_key,
    superSecretAdminKey: demo.super_secret_admin_key,
    tokenStore: "memory",
    noAutomaticPrefetch: true,
  } as never;
}
