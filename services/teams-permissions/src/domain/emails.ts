/**
 * The team invitation e-mail (teams_permissions.email.requested.v1, template "team_invitation"): a plain,
 * self-contained default body (inline styles only) with a text alternative, so invitations work before the e-mail
 * service renders project templates; the template variables travel along for when it does. Pure functions, no I/O.
 */

export interface InvitationEmail {
  readonly subject: string;
  readonly html: string;
  readonly text: string;
  readonly template: "team_invitation";
  /** The template's variables (serialised as `variables_json`). */
  readonly variables: { readonly team_display_name: string; readonly link: string; readonly project_display_name: string };
}

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}

/** "You have been invited to join <team>" with the link that accepts the invitation. */
export function invitationEmail(opts: { teamDisplayName: string; projectDisplayName: string; link: string }): InvitationEmail {
  const subject = `You have been invited to join ${opts.teamDisplayName}`;
  const intro = `You have been invited to join the team ${opts.teamDisplayName} on ${opts.projectDisplayName}. Open the link below to accept the invitation.`;
  const outro = "If you did not expect this invitation, you can ignore this e-mail. The link works once and expires in 7 days.";
  const link = escapeHtml(opts.link);
  const html = [
    "<!doctype html>",
    '<html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(subject)}</title></head>`,
    '<body style="margin:0;padding:24px;background:#f5f5f7;font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;color:#1d1d1f">',
    '<div style="max-width:480px;margin:0 auto;background:#ffffff;border-radius:8px;padding:32px">',
    `<h1 style="font-size:20px;margin:0 0 16px">${escapeHtml(subject)}</h1>`,
    `<p style="font-size:15px;line-height:1.5;margin:0 0 24px">${escapeHtml(intro)}</p>`,
    `<p style="margin:0 0 24px"><a href="${link}" style="display:inline-block;background:#1d1d1f;color:#ffffff;text-decoration:none;padding:12px 20px;border-radius:6px;font-size:15px">Join ${escapeHtml(opts.teamDisplayName)}</a></p>`,
    '<p style="font-size:13px;line-height:1.5;color:#6e6e73;margin:0 0 8px">If the button does not work, open this link:</p>',
    `<p style="font-size:13px;line-height:1.5;word-break:break-all;margin:0 0 24px"><a href="${link}" style="color:#0066cc">${link}</a></p>`,
    `<p style="font-size:13px;line-height:1.5;color:#6e6e73;margin:0">${escapeHtml(outro)}</p>`,
    "</div></body></html>",
  ].join("");
  return {
    subject,
    template: "team_invitation",
    html,
    text: `${subject}\n\n${intro}\n\n${opts.link}\n\n${outro}\n`,
    variables: { team_display_name: opts.teamDisplayName, link: opts.link, project_display_name: opts.projectDisplayName },
  };
}
