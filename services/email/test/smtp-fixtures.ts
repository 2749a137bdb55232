import net from "node:net";
import { SMTPServer } from "smtp-server";

export interface ReceivedMail {
  readonly from: string;
  readonly to: string[];
  readonly raw: string;
  /** `raw` with quoted-printable soft line breaks and escapes undone (to look for text in the bodies). */
  readonly decoded: string;
}

function decodeQuotedPrintable(raw: string): string {
  return raw.replace(/=\r?\n/g, "").replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

export type SmtpMode = "accept" | "temporary" | "permanent";

/**
 * A real SMTP server for tests that fails on purpose: it accepts, answers 421 (temporary) or 550 (permanent) to every
 * message, as `mode` says, and refuses logins other than user/right with 535.
 */
export async function startTestSmtp(): Promise<{ port: number; received: ReceivedMail[]; mode: SmtpMode; close(): Promise<void> }> {
  const state = { mode: "accept" as SmtpMode, received: [] as ReceivedMail[] };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onAuth(auth, _session, cb) {
      if (auth.username === "user" && auth.password === "right") return cb(null, { user: "user" });
      cb(Object.assign(new Error("Authentication credentials invalid"), { responseCode: 535 }));
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        if (state.mode === "temporary") return cb(Object.assign(new Error("Try again later, we are busy"), { responseCode: 421 }));
        if (state.mode === "permanent") return cb(Object.assign(new Error("Mailbox unavailable"), { responseCode: 550 }));
        state.received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString("utf8"),
          decoded: decodeQuotedPrintable(Buffer.concat(chunks).toString("utf8")),
        });
        cb();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const port = (server.server.address() as net.AddressInfo).port;
  return {
    port,
    received: state.received,
    get mode() {
      return state.mode;
    },
    set mode(m: SmtpMode) {
      state.mode = m;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A TCP server that accepts connections and never says anything (an SMTP server that hangs). */
export async function startSilentServer(): Promise<{ port: number; connections: () => number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  let count = 0;
  const server = net.createServer((s) => {
    count++;
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
    s.on("error", () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  return {
    port: (server.address() as net.AddressInfo).port,
    connections: () => count,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A port nothing listens on (connections are refused). */
export async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export function standardConfig(port: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    email_config: {
      type: "standard",
      host: "127.0.0.1",
      port,
      username: "user",
      password: "right",
      sender_name: "Acme Mail",
      sender_email: "noreply@acme.example",
      ...extra,
    },
  };
}
