/**
 * The dev mailbox over HTTP, served by the development launcher beside the frontends (development mode only):
 *
 *   GET /dev/mailbox?to=&project_id=&limit=   JSON `{items: [...]}`, newest first (what the dashboard will show)
 *   GET /dev/mailbox/view?to=                  an HTML page listing the messages with clickable links, for a person
 *                                              signing up locally who wants to open their verification link
 *
 * Messages come from the e-mail service's MailboxService (what its dev SMTP server received).
 */
import type http from "node:http";
import { listMailbox, type MailboxMessage } from "./dev-mailbox.ts";

export interface DevMailboxHttpOptions {
  /** h2c base URL of the e-mail service. */
  readonly baseUrl: string;
  readonly secret: string;
}

/** The JSON shape of one message. */
export function mailboxItem(m: MailboxMessage): Record<string, unknown> {
  return {
    id: m.id,
    email_id: m.emailId || null,
    project_id: m.projectId || null,
    from: m.from,
    to: m.to,
    subject: m.subject,
    text: m.text,
    html: m.html,
    template: m.template || null,
    received_at_millis: Number(m.createdAtMillis),
  };
}

const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

/** Escaped text with http(s) URLs as links. */
function linkified(text: string): string {
  return text
    .split(/(https?:\/\/[^\s<>"'\]]+)/g)
    .map((part, i) => (i % 2 === 1 ? `<a href="${escapeHtml(part)}">${escapeHtml(part)}</a>` : escapeHtml(part)))
    .join("");
}

export function mailboxPage(messages: readonly MailboxMessage[], to: string): string {
  const rows = messages
    .map(
      (m) => `<article>
  <h2>${escapeHtml(m.subject || "(no subject)")}</h2>
  <p class="meta">${escapeHtml(new Date(Number(m.createdAtMillis)).toISOString())} · from ${escapeHtml(m.from)} · to ${escapeHtml(m.to.join(", "))}</p>
  <pre>${linkified(m.text || "")}</pre>
</article>`,
    )
    .join("\n");
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>Dev mailbox</title>
<style>body{font-family:system-ui,sans-serif;max-width:900px;margin:24px auto;padding:0 16px;color:#1d1d1f}
article{border:1px solid #ddd;border-radius:8px;padding:12px 16px;margin:12px 0}h2{font-size:16px;margin:0 0 4px}
.meta{color:#6e6e73;font-size:12px;margin:0 0 8px}pre{white-space:pre-wrap;word-break:break-all;font-size:13px}</style></head>
<body><h1>Dev mailbox</h1>
<form><input name="to" placeholder="recipient" value="${escapeHtml(to)}"> <button>Filter</button></form>
<p>${messages.length === 0 ? "No messages yet." : `${messages.length} message(s), newest first.`}</p>
${rows}
</body></html>`;
}

/** Handles /dev/mailbox and /dev/mailbox/view; false for any other path. */
export async function handleDevMailbox(req: http.IncomingMessage, res: http.ServerResponse, opts: DevMailboxHttpOptions): Promise<boolean> {
  const url = new URL(req.url ?? "/", "http://localhost");
  if (url.pathname !== "/dev/mailbox" && url.pathname !== "/dev/mailbox/view") return false;
  const to = url.searchParams.get("to") ?? "";
  const limitParam = url.searchParams.get("limit");
  const limit = limitParam && /^\d+$/.test(limitParam) ? Number(limitParam) : 50;
  let messages: MailboxMessage[];
  try {
    messages = await listMailbox({ baseUrl: opts.baseUrl, secret: opts.secret, to, projectId: url.searchParams.get("project_id") ?? "", limit });
  } catch (err) {
    res.writeHead(503, { "content-type": "text/plain; charset=utf-8" }).end(`The e-mail service did not answer: ${(err as Error).message}\n`);
    return true;
  }
  if (url.pathname === "/dev/mailbox") {
    res.writeHead(200, { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" });
    res.end(JSON.stringify({ items: messages.map(mailboxItem) }));
  } else {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store", "x-content-type-options": "nosniff" });
    res.end(mailboxPage(messages, to));
  }
  return true;
}
