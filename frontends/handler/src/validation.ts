/** Client-side checks with the spec's rules and messages (§5); the server checks again and its message wins. */

export const PASSWORD_MAX_LENGTH = 70;
export const EMAIL_MAX_LENGTH = 256;
export const PASSWORDS_DO_NOT_MATCH = "Passwords do not match.";

/** Valid format, max 256, local part without empty dot segments, a domain ending in a dot plus at least 2 characters. */
export function emailError(email: string): string | null {
  const v = email.trim();
  if (!v) return "Please enter your e-mail address.";
  if (v.length > EMAIL_MAX_LENGTH) return `E-mail addresses can be at most ${EMAIL_MAX_LENGTH} characters long.`;
  const at = v.lastIndexOf("@");
  const local = v.slice(0, at);
  const domain = v.slice(at + 1);
  const ok = at > 0 && !/\s/.test(v) && local.split(".").every((s) => s.length > 0) && /^[^@.]+(\.[^@.]+)*\.[^@.]{2,}$/.test(domain);
  return ok ? null : "Please enter a valid e-mail address.";
}

export function passwordError(password: string): string | null {
  if (!password) return "Please enter a password.";
  if (password.length > PASSWORD_MAX_LENGTH) return `Password too long. Maximum length is ${PASSWORD_MAX_LENGTH}.`;
  return null;
}

export function confirmationError(password: string, confirmation: string): string | null {
  return password === confirmation ? null : PASSWORDS_DO_NOT_MATCH;
}
