import type { SecretBox } from "@vestibule/shared/secrets";

/**
 * E-mail bodies carry one-time codes and links, so a queued e-mail's HTML and text are stored encrypted (SecretBox
 * envelope encryption, bound to the e-mail's id and part) and cleared once the e-mail is sent or given up.
 */
export interface Body {
  readonly html: string | null;
  readonly text: string | null;
}

const context = (emailId: string, part: "html" | "text") => `email:${emailId}:${part}`;

export async function sealBody(secrets: SecretBox, emailId: string, body: Body): Promise<Body> {
  return {
    html: body.html ? await secrets.encrypt(body.html, context(emailId, "html")) : null,
    text: body.text ? await secrets.encrypt(body.text, context(emailId, "text")) : null,
  };
}

/** The clear body; values written before bodies were encrypted pass through as they are. */
export async function openBody(secrets: SecretBox, emailId: string, body: Body): Promise<Body> {
  const open = (value: string | null, part: "html" | "text") =>
    value && value.startsWith("vsb1.") ? secrets.decrypt(value, context(emailId, part)) : Promise.resolve(value);
  return { html: await open(body.html, "html"), text: await open(body.text, "text") };
}
