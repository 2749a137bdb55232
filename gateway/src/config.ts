import { int, oneOf, optionalStr, str, url, urlList, type ConfigOf } from "@vestibule/shared/config";
import { serviceSecretProblem } from "@vestibule/shared/rpc";
import { peerUrl } from "@vestibule/shared/service";
import { trustProxyProblem } from "./http/trust-proxy.ts";

/**
 * The gateway's settings. Request bodies: the largest legal request of the contract is a project update with two
 * 1,000,000-character image URLs (logo_url, full_logo_url) plus small fields, so the limit is 2 MB of URLs plus
 * 256 KiB for everything else, and no more.
 */
export const DEFAULT_BODY_LIMIT = 2 * 1_000_000 + 256 * 1024;

export const gatewayConfigSpec = {
  port: int("PORT", "HTTP/1.1 port of the public API", { default: 8102, min: 0, max: 65535 }),
  host: str("HOST", "interface to listen on", { default: "127.0.0.1" }),
  logLevel: oneOf("LOG_LEVEL", "log level", ["fatal", "error", "warn", "info", "debug", "trace", "silent"], "info"),
  mode: oneOf("VESTIBULE_MODE", "production (default) or development (override key, stack traces; loopback only)", ["development", "production"], "production"),
  serviceSecret: str("VESTIBULE_SERVICE_SECRET", "shared secret for service-to-service authentication (≥ 32 random characters)", { check: serviceSecretProblem }),
  databaseUrl: optionalStr("DATABASE_URL", "Postgres of the embedded event bus (only used when NATS_URL is unset)"),
  natsUrl: optionalStr("NATS_URL", "NATS server with JetStream; unset = embedded Postgres event bus"),
  eventPrefix: str("VESTIBULE_EVENT_PREFIX", "prefix for NATS subjects and streams", { default: "" }),
  publicUrl: url("VESTIBULE_PUBLIC_URL", "public base URL of this gateway", { default: "http://localhost:8102" }),
  trustProxy: str(
    "VESTIBULE_TRUST_PROXY",
    "which X-Forwarded-For hops to believe: false (default), a hop count (1 = one balancer), proxy addresses/CIDRs, or true (every hop; unsafe)",
    { default: "false", check: trustProxyProblem },
  ),
  bodyLimit: int("VESTIBULE_BODY_LIMIT", "maximum request body in bytes", { default: DEFAULT_BODY_LIMIT, min: 1024 }),
  authUrl: urlList("VESTIBULE_AUTH_URL", "auth service (a comma-separated list: its replicas)", { default: peerUrl("auth", {}) }),
  identityUrl: urlList("VESTIBULE_IDENTITY_URL", "identity service (a comma-separated list: its replicas)", { default: peerUrl("identity", {}) }),
  teamsPermissionsUrl: urlList("VESTIBULE_TEAMS_PERMISSIONS_URL", "teams-permissions service (a comma-separated list: its replicas)", { default: peerUrl("teams_permissions", {}) }),
  billingUrl: urlList("VESTIBULE_BILLING_URL", "billing service (a comma-separated list: its replicas)", { default: peerUrl("billing", {}) }),
  emailUrl: urlList("VESTIBULE_EMAIL_URL", "email service (a comma-separated list: its replicas)", { default: peerUrl("email", {}) }),
  vaultUrl: urlList("VESTIBULE_VAULT_URL", "vault service (a comma-separated list: its replicas)", { default: peerUrl("vault", {}) }),
  metricsPort: int("VESTIBULE_METRICS_PORT", "plain-HTTP port of Prometheus GET /metrics; 0 (default) = not served", { default: 0, min: 0, max: 65535 }),
  drainDelayMs: int("VESTIBULE_DRAIN_DELAY_MS", "after SIGTERM, how long /health reports draining (503) while requests are still served, before closing", { default: 0, min: 0, max: 60_000 }),
};

export type GatewayConfig = ConfigOf<typeof gatewayConfigSpec>;
