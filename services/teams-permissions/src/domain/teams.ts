/** Team rules that need no I/O. */
import { createHash } from "node:crypto";

/** Namespace of personal team ids (a random UUID fixed once, for UUIDv5 names). */
const PERSONAL_TEAM_NAMESPACE = "6a1f3b52-3c8e-4d0f-9b7a-2e5c4d8f1a90";

/**
 * The id of a user's personal team: a name-based UUID (version 5) of the project and user, so creating it twice (an
 * event replayed after its processed_events row is gone, say) finds the first one instead of making another.
 */
export function personalTeamId(projectId: string, userId: string): string {
  const ns = Buffer.from(PERSONAL_TEAM_NAMESPACE.replace(/-/g, ""), "hex");
  const hash = createHash("sha1").update(ns).update(`${projectId}/${userId.toLowerCase()}`).digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const h = hash.subarray(0, 16).toString("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

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
