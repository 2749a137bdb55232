import { int, optionalStr, readConfig, str, type ConfigOf } from "@vestibule/shared/config";
import { parseAllowList } from "@vestibule/shared/egress";

/** Settings of the e-mail service beyond the common ones (environment variables, read once at start). */
export const emailConfigSpec = {
  sharedSmtpUrl: optionalStr(
    "VESTIBULE_EMAIL_SHARED_SMTP_URL",
    "the platform's shared sender, e.g. smtps://user:password@smtp.example.com:465 (unset in development = the dev mailbox)",
  ),
  sharedSender: str("VESTIBULE_EMAIL_SHARED_SENDER", "From address of the shared sender (the project's name is the display name)", {
    default: "noreply@vestibule.localhost",
  }),
  devSmtpPort: int("VESTIBULE_DEV_SMTP_PORT", "port of the dev mailbox's SMTP server (development only; 0 = any free port)", {
    default: 0,
    min: 0,
    max: 65535,
  }),
  egressAllow: str(
    "VESTIBULE_EGRESS_ALLOW",
    "private addresses (CIDRs, comma-separated) that projects' own SMTP servers may still resolve to, e.g. an internal relay",
    {
      default: "",
      check: (value) => {
        try {
          parseAllowList(value);
          return null;
        } catch (err) {
          return (err as Error).message;
        }
      },
    },
  ),
  sendConcurrency: int("VESTIBULE_EMAIL_SEND_CONCURRENCY", "SMTP deliveries in flight per replica", { default: 16, min: 1, max: 256 }),
  projectConcurrency: int("VESTIBULE_EMAIL_PROJECT_CONCURRENCY", "SMTP deliveries in flight per project and replica", {
    default: 4,
    min: 1,
    max: 64,
  }),
  smtpTimeoutMs: int("VESTIBULE_EMAIL_SMTP_TIMEOUT_MS", "SMTP connection, greeting and socket timeout", { default: 20_000, min: 100, max: 600_000 }),
  maxAttempts: int("VESTIBULE_EMAIL_MAX_ATTEMPTS", "delivery attempts before an e-mail is given up (failed)", { default: 8, min: 1, max: 100 }),
  retryBaseMs: int("VESTIBULE_EMAIL_RETRY_BASE_MS", "delay before the first retry; doubles per attempt", { default: 30_000, min: 10, max: 86_400_000 }),
  retryMaxMs: int("VESTIBULE_EMAIL_RETRY_MAX_MS", "longest delay between two attempts", { default: 3_600_000, min: 10, max: 86_400_000 }),
  pollMs: int("VESTIBULE_EMAIL_POLL_MS", "how often the delivery queue is polled when no notification arrives", { default: 1_000, min: 10, max: 60_000 }),
  renderWorkers: int("VESTIBULE_EMAIL_RENDER_WORKERS", "render processes (sandboxes for template code, no secrets in their environment)", { default: 2, min: 1, max: 32 }),
  renderTimeoutMs: int("VESTIBULE_EMAIL_RENDER_TIMEOUT_MS", "CPU time limit of one render", { default: 1_500, min: 50, max: 60_000 }),
  renderMemoryMb: int("VESTIBULE_EMAIL_RENDER_MEMORY_MB", "heap limit of a render process", { default: 64, min: 16, max: 4096 }),
};

export type EmailConfig = ConfigOf<typeof emailConfigSpec>;

export function readEmailConfig(env: Readonly<Record<string, string | undefined>>): EmailConfig {
  return readConfig(emailConfigSpec, env);
}
