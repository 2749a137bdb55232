import { ApiKeyType, type ApiKey } from "@vestibule/proto/auth/v1/api_key_service";

/**
 * A user or team API key as the contract shows it (endpoints.md §0): the full string as `value` only right after
 * creation, afterwards `{ last_four }`; `expires_at_millis` / `manually_revoked_at_millis` only when set.
 */
export function apiKeyView(k: ApiKey, full = false): Record<string, unknown> {
  const out: Record<string, unknown> = { id: k.id, description: k.description };
  if (k.expiresAtMillis !== undefined) out.expires_at_millis = Number(k.expiresAtMillis);
  if (k.manuallyRevokedAtMillis !== undefined) out.manually_revoked_at_millis = Number(k.manuallyRevokedAtMillis);
  out.created_at_millis = Number(k.createdAtMillis);
  out.is_public = k.isPublic;
  out.value = full && k.value ? k.value : { last_four: k.lastFour };
  if (k.type === ApiKeyType.TEAM) {
    out.type = "team";
    out.team_id = k.ownerId;
  } else {
    out.type = "user";
    out.user_id = k.ownerId;
  }
  return out;
}
