import nodemailer from "nodemailer";
import type { SenderConfigJson } from "./store/email-store.ts";

/** Where and how one e-mail is sent. */
export interface SmtpTarget {
  readonly host: string;
  readonly port: number;
  /** Implicit TLS (port 465 or smtps://); otherwise STARTTLS is used when the server offers it. */
  readonly secure: boolean;
  readonly username?: string;
  readonly password?: string;
  /** Never upgrade to TLS (the dev mailbox). */
  readonly ignoreTls?: boolean;
  /** The From header, e.g. `"Acme" <noreply@acme.example>`. */
  readonly from: string;
  /** What is recorded about the sender (no password). */
  readonly senderConfig: SenderConfigJson;
}

export interface OutgoingMail {
  readonly to: readonly string[];
  readonly subject: string;
  readonly html: string | null;
  readonly text: string | null;
  readonly headers?: Readonly<Record<string, string>>;
}

/** A display name and address as a From header (the name quoted, so commas and the like are safe). */
export function fromHeader(name: string | undefined, address: string): string {
  if (!name) return address;
  return `"${name.replace(/["\\\r\n]/g, (c) => (c === "\r" || c === "\n" ? " " : `\\${c}`))}" <${address}>`;
}

/** The target of an smtp:// or smtps:// URL (`smtps://user:password@host:465`). */
export function targetFromUrl(url: string, from: string): SmtpTarget {
  const u = new URL(url);
  if (u.protocol !== "smtp:" && u.protocol !== "smtps:") throw new Error(`an SMTP URL must start with smtp:// or smtps://, got ${u.protocol}//`);
  const secure = u.protocol === "smtps:";
  const port = u.port ? Number(u.port) : secure ? 465 : 587;
  return {
    host: u.hostname,
    port,
    secure,
    username: u.username ? decodeURIComponent(u.username) : undefined,
    password: u.password ? decodeURIComponent(u.password) : undefined,
    from,
    senderConfig: { type: "shared" },
  };
}

/** Sends one e-mail over a fresh SMTP connection; rejects with nodemailer's error. */
export async function sendSmtp(target: SmtpTarget, mail: OutgoingMail, timeoutMs: number): Promise<void> {
  const transport = nodemailer.createTransport({
    host: target.host,
    port: target.port,
    secure: target.secure,
    ignoreTLS: target.ignoreTls ?? false,
    auth: target.username ? { user: target.username, pass: target.password ?? "" } : undefined,
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
    dnsTimeout: timeoutMs,
    disableFileAccess: true,
    disableUrlAccess: true,
  });
  try {
    await transport.sendMail({
      from: target.from,
      to: [...mail.to],
      subject: mail.subject,
      html: mail.html ?? undefined,
      text: mail.text ?? undefined,
      headers: { ...mail.headers },
    });
  } finally {
    transport.close();
  }
}

export interface SmtpFailure {
  /** The SMTP or network error text (what the admin sees). */
  readonly message: string;
  /** Worth retrying: the server could not be reached, timed out, or answered with a 4xx (temporary) reply. */
  readonly transient: boolean;
}

const TRANSIENT_CODES = new Set(["ECONNECTION", "ETIMEDOUT", "ESOCKET", "EDNS", "ECONNREFUSED", "ECONNRESET", "EPIPE", "EHOSTUNREACH", "ENETUNREACH", "EAI_AGAIN"]);

/**
 * Classifies a delivery error. Permanent: a 5xx reply (rejected recipient, message or login), bad credentials
 * (EAUTH) or an unusable envelope. Transient: everything that may work later (network, timeouts, 4xx replies).
 */
export function classifySmtpError(err: unknown): SmtpFailure {
  const e = err as { message?: unknown; code?: unknown; responseCode?: unknown };
  const message = typeof e?.message === "string" && e.message ? e.message : String(err);
  const responseCode = typeof e?.responseCode === "number" ? e.responseCode : undefined;
  if (responseCode !== undefined) return { message, transient: responseCode >= 400 && responseCode < 500 };
  const code = typeof e?.code === "string" ? e.code : "";
  if (code === "EAUTH" || code === "EENVELOPE" || code === "EMESSAGE") return { message, transient: false };
  return { message, transient: TRANSIENT_CODES.has(code) || code === "" || code === "ETLS" || code === "EPROTOCOL" };
}
