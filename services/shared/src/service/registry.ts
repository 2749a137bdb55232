/**
 * The six services: machine name → folder, default port and the env variable of their URL. Dependency-free, so
 * tools such as the health probe can import it without loading the runtime.
 */
export const SERVICES = {
  auth: { dir: "auth", port: 8110, env: "VESTIBULE_AUTH_URL" },
  identity: { dir: "identity", port: 8111, env: "VESTIBULE_IDENTITY_URL" },
  teams_permissions: { dir: "teams-permissions", port: 8112, env: "VESTIBULE_TEAMS_PERMISSIONS_URL" },
  billing: { dir: "billing", port: 8113, env: "VESTIBULE_BILLING_URL" },
  email: { dir: "email", port: 8114, env: "VESTIBULE_EMAIL_URL" },
  vault: { dir: "vault", port: 8115, env: "VESTIBULE_VAULT_URL" },
} as const;

export type ServiceName = keyof typeof SERVICES;
export const SERVICE_NAMES = Object.keys(SERVICES) as ServiceName[];

/**
 * Base URL (h2c) of a peer service: `VESTIBULE_<NAME>_URL`, else 127.0.0.1 on its default port. The variable may list
 * the service's replicas, comma-separated ("http://10.0.0.5:8111,http://10.0.0.6:8111"): the RPC clients spread calls
 * over them (see rpc/replicas.ts).
 */
export function peerUrl(name: ServiceName, env: Readonly<Record<string, string | undefined>> = process.env): string {
  const raw = env[SERVICES[name].env] || `http://127.0.0.1:${SERVICES[name].port}`;
  return raw
    .split(",")
    .map((u) => u.trim().replace(/\/+$/, ""))
    .filter((u) => u !== "")
    .join(",");
}
