/** Team rules that need no I/O. */

/** Name of the personal team created on sign-up (contract headers-and-auth.md §4). */
export function personalTeamName(user: { displayName?: string; primaryEmail?: string }): string {
  if (user.displayName) return `${user.displayName}'s Team`;
  if (user.primaryEmail) return `${user.primaryEmail}'s Team`;
  return "Personal Team";
}

export class MetadataError extends Error {}

/** A metadata JSON text as stored: null for "" / "null", else the text itself once it parsed. */
export function parseMetadataJson(text: string | undefined, field: string): string | null {
  if (text === undefined || text === "" || text === "null") return null;
  try {
    JSON.parse(text);
  } catch {
    throw new MetadataError(`${field} is not valid JSON`);
  }
  return text;
}
