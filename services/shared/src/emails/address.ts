/** E-mail addresses are compared and stored trimmed and lower-cased (users, credentials, invitations, the mailbox). */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}
