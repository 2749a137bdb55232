import { Type } from "typebox";
import { Nullable, Obj, OneOf, Uuid } from "../../validation/index.ts";
import type { ApiKeySet } from "@vestibule/proto/identity/v1/api_key_service";
import { defineRoute } from "../route.ts";

/**
 * An internal API key set as the contract shows it: full key strings only right after creation, afterwards each
 * key that exists as `{ last_four }`.
 */
export function apiKeySetView(k: ApiKeySet, full: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: k.id,
    description: k.description,
    created_at_millis: Number(k.createdAtMillis),
    expires_at_millis: Number(k.expiresAtMillis) || null,
  };
  if (k.manuallyRevokedAtMillis !== undefined) out.manually_revoked_at_millis = Number(k.manuallyRevokedAtMillis);
  const keys = [
    ["publishable_client_key", k.publishableClientKey, k.publishableClientKeyLastFour],
    ["secret_server_key", k.secretServerKey, k.secretServerKeyLastFour],
    ["super_secret_admin_key", k.superSecretAdminKey, k.superSecretAdminKeyLastFour],
  ] as const;
  for (const [name, value, lastFour] of keys) {
    if (full && value) out[name] = value;
    else if (lastFour) out[name] = { last_four: lastFour };
  }
  return out;
}

const KeyIdParams = Obj({ api_key_id: Uuid() });

export const createInternalApiKeyRoute = defineRoute({
  method: "POST",
  path: "/internal/api-keys",
  summary: "Create an API key set (publishable, secret server and/or admin key)",
  tags: ["API keys (admin)"],
  access: ["admin"],
  schemas: {
    body: Obj(
      {
        description: Type.String({ maxLength: 1024 }),
        expires_at_millis: Nullable(Type.Integer({ minimum: 0 })),
        has_publishable_client_key: Type.Boolean(),
        has_secret_server_key: Type.Boolean(),
        has_super_secret_admin_key: Type.Boolean(),
      },
    ),
  },
  async handler({ auth, body, clients }) {
    const { apiKeySet } = await clients.apiKeySets.createApiKeySet({
      projectId: auth.projectId,
      description: body.description,
      expiresAtMillis: BigInt(body.expires_at_millis ?? 0),
      hasPublishableClientKey: body.has_publishable_client_key,
      hasSecretServerKey: body.has_secret_server_key,
      hasSuperSecretAdminKey: body.has_super_secret_admin_key,
    });
    return { json: apiKeySetView(apiKeySet!, true) };
  },
});

export const listInternalApiKeysRoute = defineRoute({
  method: "GET",
  path: "/internal/api-keys",
  summary: "List the project's API key sets (last four characters only)",
  tags: ["API keys (admin)"],
  access: ["admin"],
  schemas: {},
  async handler({ auth, clients }) {
    const { apiKeySets } = await clients.apiKeySets.listApiKeySets({ projectId: auth.projectId });
    return { json: { items: apiKeySets.map((k) => apiKeySetView(k, false)), is_paginated: false } };
  },
});

export const getInternalApiKeyRoute = defineRoute({
  method: "GET",
  path: "/internal/api-keys/:api_key_id",
  summary: "Read one API key set",
  tags: ["API keys (admin)"],
  access: ["admin"],
  schemas: { params: KeyIdParams },
  async handler({ auth, params, clients }) {
    const { apiKeySet } = await clients.apiKeySets.getApiKeySet({ projectId: auth.projectId, apiKeySetId: params.api_key_id });
    return { json: apiKeySetView(apiKeySet!, false) };
  },
});

export const updateInternalApiKeyRoute = defineRoute({
  method: "PATCH",
  path: "/internal/api-keys/:api_key_id",
  summary: "Change the description of an API key set or revoke it",
  tags: ["API keys (admin)"],
  access: ["admin"],
  schemas: {
    params: KeyIdParams,
    body: Obj({ description: Type.Optional(Type.String({ maxLength: 1024 })), revoked: Type.Optional(OneOf([true])) }),
  },
  async handler({ auth, params, body, clients }) {
    const { apiKeySet } = await clients.apiKeySets.updateApiKeySet({
      projectId: auth.projectId,
      apiKeySetId: params.api_key_id,
      description: body.description,
      revoke: body.revoked === true,
    });
    return { json: apiKeySetView(apiKeySet!, false) };
  },
});
