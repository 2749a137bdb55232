/**
 * The e-mail telling an API key's owner that a secret scanner found the key in public and it was revoked.
 * Plain, self-contained HTML (inline styles only) plus a text alternative. Pure functions, no I/O.
 */
import { escapeHtml, type EmailContent } from "../../domain/emails.ts";

export function leakedApiKeyRevokedEmail(input: {
  projectName: string;
  kind: "user" | "team";
  description: string;
  lastFour: string;
}): EmailContent {
  const subject = `An API key of your ${input.projectName} account was revoked`;
  const what = `${input.kind === "team" ? "A team" : "Your"} API key "${input.description}" (ending in ${input.lastFour})`;
  const intro = `${what} was found in a public place, such as a public code repository, and has been revoked so that nobody can use it.`;
  const outro = `Requests made with this key now fail. If you still need API access, create a new key and keep it out of public code.`;
  const html = [
    "<!doctype html>",
    '<html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(subject)}</title></head>`,
    '<body style="margin:0;padding:24px;background:#f5f5f7;font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;color:#1d1d1f">',
    '<div style="max-width:480px;margin:0 auto;background:#ffffff;border-radius:8px;padding:32px">',
    `<h1 style="font-size:20px;margin:0 0 16px">${escapeHtml(subject)}</h1>`,
    `<p style="font-size:15px;line-height:1.5;margin:0 0 24px">${escapeHtml(intro)}</p>`,
    `<p style="font-size:13px;line-height:1.5;color:#6e6e73;margin:0">${escapeHtml(outro)}</p>`,
    "</div></body></html>",
  ].join("");
  return { subject, template: "api_key_revoked", html, text: `${subject}\n\n${intro}\n\n${outro}\n` };
}
