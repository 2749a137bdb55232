import { createHash } from "node:crypto";
import type { BlockList } from "node:net";
import nodemailer, { type Transporter } from "nodemailer";
import { parseAllowList, resolvePublicHost } from "@vestibule/shared/egress";
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
  /**
   * A host a project owner chose: it must resolve to public addresses only (or ones on the operator's allow-list),
   * and the connection goes to the address that was checked. The platform's own shared sender is not restricted.
   */
  readonly ownerChosen?: boolean;
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

const allowLists = new Map<string, BlockList>();

/** The allow-list of `VESTIBULE_EGRESS_ALLOW` (validated at start-up), parsed once. */
export function egressAllowList(spec: string): BlockList {
  let list = allowLists.get(spec);
  if (!list) allowLists.set(spec, (list = parseAllowList(spec)));
  return list;
}

/** nodemailer's options for a target, connecting to `address` (the checked address of an owner-chosen host). */
function transportOptions(target: SmtpTarget, address: string, timeoutMs: number) {
  return {
    host: address,
    port: target.port,
    ...(address !== target.host ? { tls: { servername: target.host } } : {}),
    secure: target.secure,
    ignoreTLS: target.ignoreTls ?? false,
    auth: target.username ? { user: target.username, pass: target.password ?? "" } : undefined,
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
    dnsTimeout: timeoutMs,
    disableFileAccess: true,
    disableUrlAccess: true,
  };
}

function message(target: SmtpTarget, mail: OutgoingMail) {
  return { from: target.from, to: [...mail.to], subject: mail.subject, html: mail.html ?? undefined, text: mail.text ?? undefined, headers: { ...mail.headers } };
}

/** A pooled SMTP transport is closed after this long without a message. */
const POOL_IDLE_MS = 30_000;

/**
 * SMTP connections kept open and reused across e-mails (issue 19: a connection per message cost its TCP set-up, the
 * server's greeting, EHLO and login every time), one nodemailer pool per server, address and login. An owner-chosen
 * host is still resolved and checked for every e-mail, and its pool is keyed by the checked address, so mail goes only
 * to an address that passed the check. Pools unused for POOL_IDLE_MS are closed; `close` closes them all.
 */
export class SmtpConnections {
  private readonly pools = new Map<string, { transport: Transporter; lastUsed: number }>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly opts: { timeoutMs: number; maxConnections: number; egressAllow?: BlockList }) {
    this.sweeper = setInterval(() => this.sweep(Date.now() - POOL_IDLE_MS), POOL_IDLE_MS).unref();
  }

  /** Sends one e-mail; rejects like sendSmtp. */
  async send(target: SmtpTarget, mail: OutgoingMail): Promise<void> {
    const address = target.ownerChosen ? (await resolvePublicHost(target.host, this.opts.egressAllow)).address : target.host;
    const key = JSON.stringify([
      address,
      target.host,
      target.port,
      target.secure,
      target.ignoreTls ?? false,
      target.username ?? "",
      target.password ? createHash("sha256").update(target.password).digest("base64") : "",
    ]);
    let entry = this.pools.get(key);
    if (!entry) {
      const transport = nodemailer.createTransport({ ...transportOptions(target, address, this.opts.timeoutMs), pool: true, maxConnections: this.opts.maxConnections, maxMessages: 1000 });
      // A pooled connection that fails while idle must not crash the process; the next e-mail opens a new one.
      transport.on("error", () => {});
      entry = { transport, lastUsed: Date.now() };
      this.pools.set(key, entry);
    }
    entry.lastUsed = Date.now();
    await entry.transport.sendMail(message(target, mail));
  }

  close(): void {
    clearInterval(this.sweeper);
    this.sweep(Number.POSITIVE_INFINITY);
  }

  private sweep(unusedSince: number): void {
    for (const [key, entry] of this.pools) {
      if (entry.lastUsed >= unusedSince) continue;
      this.pools.delete(key);
      entry.transport.close();
    }
  }
}

/**
 * Sends one e-mail over a fresh SMTP connection (the settings test: it must show that a connection can be made); rejects with nodemailer's error, or EgressRefusedError when an
 * owner-chosen host resolves to a private or internal address not on `egressAllow`.
 */
export async function sendSmtp(target: SmtpTarget, mail: OutgoingMail, timeoutMs: number, egressAllow?: BlockList): Promise<void> {
  // An owner-chosen host is resolved and checked once; the connection goes to that address, with the host name kept
  // for TLS (SNI and certificate checks), so a second DNS answer cannot point it elsewhere.
  const address = target.ownerChosen ? (await resolvePublicHost(target.host, egressAllow)).address : target.host;
  const transport = nodemailer.createTransport(transportOptions(target, address, timeoutMs));
  try {
    await transport.sendMail(message(target, mail));
  } finally {
    transport.close();
  }
}

export interface SmtpFailure {
  /**
   * What the admin sees: the SMTP server's own reply when it answered (its code and text), otherwise a sentence for
   * the class of network failure, never the raw socket error (which named the addresses and ports it tried).
   */
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
  if (code === "EEGRESS") return { message: `The e-mail server's address is not allowed: ${message}.`, transient: false };
  if (code === "EAUTH" || code === "EENVELOPE" || code === "EMESSAGE") return { message, transient: false };
  return { message: networkFailure(code, message), transient: TRANSIENT_CODES.has(code) || code === "" || code === "ETLS" || code === "EPROTOCOL" };
}

/** A sentence for a failure below SMTP (connection, DNS, TLS, timeout), with nodemailer's code but no addresses. */
function networkFailure(code: string, message: string): string {
  const suffix = code ? ` (${code})` : "";
  if (code === "ECONNREFUSED" || /ECONNREFUSED/.test(message)) return "The e-mail server refused the connection (ECONNREFUSED).";
  if (code === "ETIMEDOUT" || /timed? ?out|greeting never received/i.test(message)) return `The connection to the e-mail server timed out${suffix}.`;
  if (code === "EDNS" || code === "EAI_AGAIN" || /ENOTFOUND|EAI_AGAIN/.test(message)) return `The e-mail server's host name could not be resolved${suffix}.`;
  if (code === "ETLS") return `The TLS connection to the e-mail server failed${suffix}.`;
  if (code === "EPROTOCOL") return `The e-mail server did not speak SMTP as expected${suffix}.`;
  return `The connection to the e-mail server failed${suffix}.`;
}
