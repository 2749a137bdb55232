import { pino, type Logger, type LoggerOptions } from "pino";
import { currentContext } from "../context/index.ts";

export type { Logger };

/**
 * Keys whose values are never written to logs, wherever they appear (two levels deep, plus request headers).
 * Secrets also never reach log calls on purpose; this is the safety net.
 */
const REDACTED_KEYS = [
  "password",
  "new_password",
  "old_password",
  "password_hash",
  "secret",
  "client_secret",
  "refresh_token",
  "refreshToken",
  "access_token",
  "accessToken",
  "api_key",
  "token",
  "verification_code",
  "totp_secret_base64",
  "publishable_client_key",
  "secret_server_key",
  "super_secret_admin_key",
  "authorization",
  "cookie",
  "apiKey",
  "totp",
  "attempt_code",
  "attemptCode",
  "polling_code",
  "pollingCode",
  "login_code",
  "loginCode",
  "encrypted_value",
  "encryptedValue",
  // Field names of RPC messages (camelCase), should a request or response message ever be logged.
  "clientSecret",
  "newPassword",
  "oldPassword",
  "passwordHash",
  "totpSecret",
  "totpSecretBase64",
  "publishableClientKey",
  "secretServerKey",
  "superSecretAdminKey",
  "verificationCode",
  // E-mail requests: bodies, variables and links carry one-time codes.
  "html",
  "variables_json",
  "variablesJson",
  "sealed_content",
  "sealedContent",
  "link",
  "nonce",
  "otp",
];

const REDACT_PATHS = [
  ...REDACTED_KEYS,
  ...REDACTED_KEYS.map((k) => `*.${k}`),
  ...REDACTED_KEYS.map((k) => `*.*.${k}`),
  'req.headers["x-stack-access-token"]',
  'req.headers["x-stack-refresh-token"]',
  'req.headers["x-stack-publishable-client-key"]',
  'req.headers["x-stack-secret-server-key"]',
  'req.headers["x-stack-super-secret-admin-key"]',
  'req.headers["x-stack-admin-access-token"]',
  'req.headers["x-hexclave-access-token"]',
  'req.headers["x-hexclave-refresh-token"]',
  'req.headers["x-hexclave-publishable-client-key"]',
  'req.headers["x-hexclave-secret-server-key"]',
  'req.headers["x-hexclave-super-secret-admin-key"]',
  'req.headers["x-hexclave-admin-access-token"]',
  'req.headers["x-vestibule-service-token"]',
];

export interface LoggerSettings {
  /** Machine name of the service (auth, identity, ..., gateway): the `service` field of every line. */
  readonly service: string;
  readonly level?: string;
}

/** JSON-lines logger; every line carries `service` and, inside a request, `request_id`. */
export function createLogger(settings: LoggerSettings, destination?: pino.DestinationStream): Logger {
  const options: LoggerOptions = {
    level: settings.level ?? "info",
    base: { service: settings.service },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: REDACT_PATHS, censor: "[redacted]" },
    mixin() {
      const ctx = currentContext();
      if (!ctx) return {};
      return ctx.caller ? { request_id: ctx.requestId, caller: ctx.caller } : { request_id: ctx.requestId };
    },
  };
  return destination ? pino(options, destination) : pino(options);
}

/**
 * A URL (or a comma-separated list of them, as NATS_URL allows) with the credentials of its authority hidden, for log
 * lines and banners: `nats://user:pw@host` → `nats://user:***@host`, `nats://token@host` → `nats://***@host`, and a
 * `password=` (or `pass=`, `token=`) query parameter (libpq URLs) → `password=***`.
 */
export function withoutCredentials(urls: string): string {
  return urls
    .replace(/\/\/([^/@,\s]*)@/g, (_, auth: string) => {
      const colon = auth.indexOf(":");
      return colon >= 0 ? `//${auth.slice(0, colon)}:***@` : "//***@";
    })
    .replace(/([?&](?:password|pass|token)=)[^&,\s]*/gi, "$1***");
}
