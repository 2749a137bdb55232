/** User and team API keys (created, listed, updated, revoked) for the apps' users and teams; the fields every key has. */
import type { ApiClient, Session as CoreSession } from "@vestibule/sdk-core";
import type { Json } from "../json.ts";
import type { ApiKeyCreationOptions } from "../types.ts";

export async function createApiKey(api: ApiClient, session: CoreSession | null, type: "user" | "team", ownerId: string, options: ApiKeyCreationOptions) {
  const json = await api.json<Json>(`/${type}-api-keys`, {
    method: "POST",
    body: {
      description: options.description,
      expires_at_millis: options.expiresAt ? options.expiresAt.getTime() : null,
      is_public: options.isPublic,
      [`${type}_id`]: ownerId,
    },
    session,
    accessType: session ? "client" : "server",
  });
  return apiKeyFrom(api, session, json);
}

export async function listApiKeys(api: ApiClient, session: CoreSession | null, type: "user" | "team", ownerId: string) {
  const r = await api.json<{ items: Json[] }>(`/${type}-api-keys`, { query: { [`${type}_id`]: ownerId }, session, accessType: session ? "client" : "server" });
  return r.items.map((k) => apiKeyFrom(api, session, k));
}

export function apiKeyFrom(api: ApiClient, session: CoreSession | null, json: Json) {
  const type = json.type as "user" | "team";
  const ownerQuery = type === "user" ? { user_id: json.user_id } : { team_id: json.team_id };
  const update = async (o: { description?: string; expiresAt?: Date | null; revoked?: boolean }) => {
    await api.send(`/${type}-api-keys/${json.id}`, {
      method: "PATCH",
      query: ownerQuery,
      body: {
        description: o.description,
        expires_at_millis: o.expiresAt === undefined ? undefined : o.expiresAt === null ? null : o.expiresAt.getTime(),
        revoked: o.revoked,
      },
      session,
      accessType: session ? "client" : "server",
    });
  };
  return {
    ...keyFields(json, undefined),
    isPublic: !!json.is_public,
    type,
    ...(type === "user" ? { userId: json.user_id } : { teamId: json.team_id }),
    value: typeof json.value === "string" ? json.value : { lastFour: json.value?.last_four },
    update,
    revoke: () => update({ revoked: true }),
  };
}

/**
 * The fields every key has (user, team and internal keys); a key is invalid once revoked by hand, else once expired.
 * `noExpiry` is what a key without an expiry shows: undefined for user and team keys, null for internal key sets.
 */
export function keyFields<E extends null | undefined>(json: Json, noExpiry: E) {
  const expiresAt = json.expires_at_millis == null ? noExpiry : new Date(json.expires_at_millis);
  const manuallyRevokedAt = json.manually_revoked_at_millis == null ? null : new Date(json.manually_revoked_at_millis);
  const whyInvalid = (): "manually-revoked" | "expired" | null =>
    manuallyRevokedAt ? "manually-revoked" : expiresAt && expiresAt.getTime() < Date.now() ? "expired" : null;
  return {
    id: json.id as string,
    description: json.description as string,
    expiresAt,
    manuallyRevokedAt,
    createdAt: new Date(json.created_at_millis),
    isValid: () => whyInvalid() === null,
    whyInvalid,
  };
}
