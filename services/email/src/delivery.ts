import type { Pool } from "@vestibule/shared/db";
import { fromConnectError, isKnownError } from "@vestibule/shared/errors";
import { newId } from "@vestibule/shared/ids";
import type { Logger } from "@vestibule/shared/log";
import type { SecretBox } from "@vestibule/shared/secrets";
import { ClaimPump } from "@vestibule/shared/queue";
import { openBody } from "./bodies.ts";
import type { EmailConfig } from "./config.ts";
import type { ProjectSettingsCache } from "./project-settings.ts";
import { classifySmtpError, egressAllowList, fromHeader, SmtpConnections, type SmtpTarget } from "./smtp.ts";
import { emailStore, type ClaimedEmail, type SenderConfigJson } from "./store/email-store.ts";
import type { ProjectEmailSettings } from "./domain/settings.ts";

/** The platform's shared sender: an SMTP server and a From address (the project's name is the display name). */
export interface SharedSender {
  readonly target: Omit<SmtpTarget, "from" | "senderConfig">;
  readonly address: string;
}

export interface DeliveryDeps {
  readonly pool: Pool;
  readonly connectionString: string;
  readonly log: Logger;
  readonly secrets: SecretBox;
  readonly settings: ProjectSettingsCache;
  readonly config: EmailConfig;
  /** undefined: no shared sender (production without VESTIBULE_EMAIL_SHARED_SMTP_URL). */
  readonly shared: SharedSender | undefined;
}

/** Delay before attempt `attempts + 1`: base × 2^(attempts − 1), at most `max`, ±20% jitter. */
export function retryDelayMs(attempts: number, baseMs: number, maxMs: number, random = Math.random): number {
  const exp = Math.min(maxMs, baseMs * 2 ** Math.max(0, attempts - 1));
  return Math.round(exp * (0.8 + 0.4 * random()));
}

/** The SMTP target of a project (its own server or the shared sender), or why there is none. */
export function targetOf(settings: ProjectEmailSettings, shared: SharedSender | undefined): SmtpTarget | { problem: string } {
  const s = settings.server;
  if (s.isShared) {
    if (!shared) return { problem: "No shared e-mail server is configured for this platform (VESTIBULE_EMAIL_SHARED_SMTP_URL)." };
    return { ...shared.target, from: fromHeader(settings.displayName, shared.address), senderConfig: { type: "shared" } };
  }
  if (!s.host || s.port === undefined || !s.senderEmail) return { problem: "The project's e-mail server settings are incomplete (host, port and sender e-mail are required)." };
  const senderConfig: SenderConfigJson = {
    type: "standard",
    host: s.host,
    port: s.port,
    username: s.username,
    sender_name: s.senderName,
    sender_email: s.senderEmail,
  };
  return {
    host: s.host,
    port: s.port,
    secure: s.port === 465,
    username: s.username,
    password: s.password,
    from: fromHeader(s.senderName, s.senderEmail),
    senderConfig,
    ownerChosen: true,
  };
}

/**
 * Delivers queued e-mails over SMTP. Durable and shared by every replica: the queue is the `emails` table (see
 * emailStore.claimDue), woken by NOTIFY email_queue when a row is queued and polled every `pollMs` for retries that
 * fall due. At most `sendConcurrency` deliveries run at once per replica and at most `projectConcurrency` of one
 * project, each bounded by the SMTP timeouts, so one slow or failing SMTP server holds up only its own project's mail.
 * SMTP connections are pooled per server (SmtpConnections). Transient failures are retried with exponential backoff (`retryBaseMs`, `retryMaxMs`) up to `maxAttempts`; each
 * attempt's error is kept on the row. Bodies and passwords are never logged.
 */
export class DeliveryQueue {
  private readonly pump: ClaimPump<ClaimedEmail>;
  private readonly smtp: SmtpConnections;

  constructor(private readonly deps: DeliveryDeps) {
    const { config } = deps;
    this.smtp = new SmtpConnections({ timeoutMs: config.smtpTimeoutMs, maxConnections: config.sendConcurrency, egressAllow: egressAllowList(config.egressAllow) });
    const leaseSeconds = (3 * config.smtpTimeoutMs + 30_000) / 1000;
    this.pump = new ClaimPump<ClaimedEmail>({
      name: "e-mail queue",
      channel: "email_queue",
      connectionString: deps.connectionString,
      log: deps.log,
      pollMs: config.pollMs,
      concurrency: config.sendConcurrency,
      groupLimit: config.projectConcurrency,
      claim: (limit, busyProjects) => emailStore.claimDue(deps.pool, { limit, perProject: 1, busyProjects, leaseId: newId(), leaseSeconds }),
      groupOf: (email) => email.project_id,
      handle: (email) => this.deliver(email),
    });
  }

  start(): Promise<void> {
    return this.pump.start();
  }

  /** Looks for due e-mails now (e.g. right after queueing one in this process). */
  kick(): void {
    this.pump.kick();
  }

  /** In-flight deliveries finish (each bounded by the SMTP timeouts); their leases would cover a crash anyway. */
  async stop(): Promise<void> {
    await this.pump.stop();
    this.smtp.close();
  }

  private async deliver(email: ClaimedEmail): Promise<void> {
    const { pool, log, config } = this.deps;
    const fields = { email_id: email.id, project_id: email.project_id, attempt: email.attempts };
    const fail = async (error: string, transient: boolean, senderConfig: SenderConfigJson | null) => {
      if (transient && email.attempts < config.maxAttempts) {
        const delay = retryDelayMs(email.attempts, config.retryBaseMs, config.retryMaxMs);
        await emailStore.markRetry(pool, email.id, email.lease_id, error, delay, senderConfig);
        log.warn({ ...fields, error, retry_in_ms: delay }, "e-mail delivery failed; will retry");
      } else {
        const final = transient ? `${error} (gave up after ${email.attempts} attempts)` : error;
        await emailStore.markFailed(pool, email.id, email.lease_id, final, senderConfig);
        log.warn({ ...fields, error: final }, "e-mail delivery failed");
      }
    };
    try {
      let settings: ProjectEmailSettings;
      try {
        settings = await this.deps.settings.get(email.project_id);
      } catch (err) {
        if (isKnownError(fromConnectError(err), "PROJECT_NOT_FOUND")) return await fail("The project no longer exists.", false, null);
        return await fail(`Could not read the project's e-mail settings: ${(err as Error).message}`, true, null);
      }
      const target = targetOf(settings, this.deps.shared);
      if ("problem" in target) return await fail(target.problem, false, settings.server.isShared ? { type: "shared" } : null);
      let body;
      try {
        body = await openBody(this.deps.secrets, email.id, email);
      } catch (err) {
        return await fail(`The e-mail's body cannot be decrypted: ${(err as Error).message}`, false, target.senderConfig);
      }
      try {
        await this.smtp.send(target, { to: email.recipients, subject: email.subject, html: body.html, text: body.text, headers: { "X-Vestibule-Email-Id": email.id } });
      } catch (err) {
        const failure = classifySmtpError(err);
        return await fail(failure.message, failure.transient, target.senderConfig);
      }
      if (await emailStore.markSent(pool, email.id, email.lease_id, target.senderConfig)) log.info(fields, "e-mail sent");
      else log.warn(fields, "e-mail sent, but its lease had run out (another replica may send it again)");
    } catch (err) {
      // Recording the outcome failed (database down): the lease runs out and the e-mail is tried again.
      log.error({ ...fields, err }, "recording an e-mail delivery failed");
    }
  }
}
