import { simpleParser, type AddressObject } from "mailparser";
import { SMTPServer, type SMTPServerSession } from "smtp-server";
import type { Pool } from "@vestibule/shared/db";
import { isUuid, newId } from "@vestibule/shared/ids";
import type { Logger } from "@vestibule/shared/log";
import { normalizeAddress } from "./domain/email-request.ts";
import { mailboxStore } from "./store/mailbox-store.ts";

/** The largest message the dev mailbox accepts. */
const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

export interface DevMailbox {
  readonly host: string;
  readonly port: number;
  close(): Promise<void>;
}

function headerText(value: AddressObject | AddressObject[] | undefined): string {
  if (!value) return "";
  return (Array.isArray(value) ? value : [value]).map((a) => a.text).join(", ");
}

/**
 * The dev mailbox (development mode only): a real SMTP server on 127.0.0.1, used as the platform's shared sender, that
 * keeps every message it receives (decoded: subject, HTML and text parts) in `dev_mailbox_messages`. Any or no
 * login is accepted, no TLS. MailboxService lists the messages.
 */
export async function startDevMailbox(opts: { pool: Pool; log: Logger; port: number; host?: string }): Promise<DevMailbox> {
  const host = opts.host ?? "127.0.0.1";
  const server = new SMTPServer({
    name: "vestibule-dev-mailbox",
    banner: "Vestibule dev mailbox (development only; keeps every message)",
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    size: MAX_MESSAGE_BYTES,
    logger: false,
    onAuth(auth, _session, callback) {
      callback(null, { user: auth.username ?? "dev" });
    },
    onData(stream, session: SMTPServerSession, callback) {
      const chunks: Buffer[] = [];
      let size = 0;
      stream.on("data", (chunk: Buffer) => {
        size += chunk.length;
        chunks.push(chunk);
      });
      stream.on("error", (err) => callback(err));
      stream.on("end", () => {
        if ((stream as unknown as { sizeExceeded?: boolean }).sizeExceeded) {
          callback(Object.assign(new Error("Message exceeds the dev mailbox's size limit"), { responseCode: 552 }));
          return;
        }
        const raw = Buffer.concat(chunks);
        void (async () => {
          const parsed = await simpleParser(raw);
          const emailIdHeader = parsed.headers.get("x-vestibule-email-id");
          const emailId = typeof emailIdHeader === "string" && isUuid(emailIdHeader.trim()) ? emailIdHeader.trim() : null;
          const envelopeFrom = session.envelope.mailFrom ? session.envelope.mailFrom.address : "";
          await mailboxStore.insert(opts.pool, {
            id: newId(),
            emailId,
            envelopeFrom,
            recipients: session.envelope.rcptTo.map((r) => normalizeAddress(r.address)),
            fromHeader: headerText(parsed.from),
            subject: parsed.subject ?? "",
            html: typeof parsed.html === "string" ? parsed.html : null,
            text: parsed.text ?? null,
            size,
          });
          opts.log.debug({ email_id: emailId, size }, "dev mailbox received a message");
        })().then(
          () => callback(),
          (err: unknown) => {
            opts.log.error({ err }, "dev mailbox could not store a message");
            callback(Object.assign(new Error("The dev mailbox could not store the message"), { responseCode: 451 }));
          },
        );
      });
    },
  });
  server.on("error", (err) => opts.log.warn({ err }, "dev mailbox SMTP error"));
  await new Promise<void>((resolve, reject) => {
    server.server.once("error", reject);
    server.listen(opts.port, host, () => {
      server.server.off("error", reject);
      resolve();
    });
  });
  const port = (server.server.address() as { port: number }).port;
  return {
    host,
    port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
