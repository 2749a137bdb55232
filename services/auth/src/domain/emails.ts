/**
 * The e-mails the auth service asks for (auth.email.requested.v1): e-mail verification, password reset and magic link
 * / one-time code. Each names its system template and the template's variables; the e-mail service renders the
 * project's template with them. The plain, self-contained HTML (inline styles only) and text alternative built here
 * are the fallback body it sends when that template is missing or fails to render. Pure functions, no I/O.
 */

export interface EmailContent {
  readonly subject: string;
  readonly html: string;
  readonly text: string;
  /** The system template it stands for (the e-mail service renders the project's version of it, if it has one). */
  readonly template: "email_verification" | "password_reset" | "magic_link" | "api_key_revoked";
  /** The template's variables (see services/email/src/defaults); none for e-mails sent only as built here. */
  readonly variables?: Readonly<Record<string, string>>;
}

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}

function layout(opts: { title: string; intro: string; button: string; link: string; outro: string }): string {
  const link = escapeHtml(opts.link);
  return [
    "<!doctype html>",
    '<html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(opts.title)}</title></head>`,
    '<body style="margin:0;padding:24px;background:#f5f5f7;font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;color:#1d1d1f">',
    '<div style="max-width:480px;margin:0 auto;background:#ffffff;border-radius:8px;padding:32px">',
    `<h1 style="font-size:20px;margin:0 0 16px">${escapeHtml(opts.title)}</h1>`,
    `<p style="font-size:15px;line-height:1.5;margin:0 0 24px">${escapeHtml(opts.intro)}</p>`,
    `<p style="margin:0 0 24px"><a href="${link}" style="display:inline-block;background:#1d1d1f;color:#ffffff;text-decoration:none;padding:12px 20px;border-radius:6px;font-size:15px">${escapeHtml(opts.button)}</a></p>`,
    `<p style="font-size:13px;line-height:1.5;color:#6e6e73;margin:0 0 8px">If the button does not work, open this link:</p>`,
    `<p style="font-size:13px;line-height:1.5;word-break:break-all;margin:0 0 24px"><a href="${link}" style="color:#0066cc">${link}</a></p>`,
    `<p style="font-size:13px;line-height:1.5;color:#6e6e73;margin:0">${escapeHtml(opts.outro)}</p>`,
    "</div></body></html>",
  ].join("");
}

/** "Verify your email at <project>" with the verification link. */
export function verificationEmail(projectName: string, link: string): EmailContent {
  const subject = `Verify your email at ${projectName}`;
  const intro = `Please confirm that this e-mail address belongs to you by opening the link below.`;
  const outro = `If you did not create an account at ${projectName}, you can ignore this e-mail.`;
  return {
    subject,
    template: "email_verification",
    variables: { link },
    html: layout({ title: subject, intro, button: "Verify my e-mail", link, outro }),
    text: `${subject}\n\n${intro}\n\n${link}\n\n${outro}\n`,
  };
}

/** "Reset your password at <project>" with the reset link. */
export function passwordResetEmail(projectName: string, link: string): EmailContent {
  const subject = `Reset your password at ${projectName}`;
  const intro = `Someone asked to reset the password of your ${projectName} account. Open the link below to choose a new password.`;
  const outro = `If you did not ask for this, you can ignore this e-mail; your password stays unchanged.`;
  return {
    subject,
    template: "password_reset",
    variables: { link },
    html: layout({ title: subject, intro, button: "Reset my password", link, outro }),
    text: `${subject}\n\n${intro}\n\n${link}\n\n${outro}\n`,
  };
}

/** "Sign in to <project>: Your code is <OTP>" with the one-time code and the magic link (contract §1 OTP). */
export function magicLinkEmail(projectName: string, link: string, otp: string): EmailContent {
  const subject = `Sign in to ${projectName}: Your code is ${otp}`;
  const intro = `Your sign-in code is ${otp}. Enter it, or open the link below to sign in.`;
  const outro = `If you did not try to sign in, you can ignore this e-mail.`;
  return {
    subject,
    template: "magic_link",
    variables: { link, otp },
    html: layout({ title: subject, intro, button: "Sign in", link, outro }),
    text: `${subject}\n\n${intro}\n\n${link}\n\n${outro}\n`,
  };
}
