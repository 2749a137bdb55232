import { create, type MessageInitShape } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import { ApiKeySchema, ApiKeyService, ApiKeyType, type ApiKey } from "@vestibule/proto/auth/v1/api_key_service";
import { knownError, statusError } from "@vestibule/shared/errors";
import { isUuid } from "@vestibule/shared/ids";
import type { ApiKeyKind } from "./domain/api-keys.ts";
import type { AuthRuntime } from "../runtime.ts";
import type { SecurityRuntime } from "../security-runtime.ts";
import type { ApiKeyRow } from "./store/api-key-store.ts";

const KIND: Partial<Record<ApiKeyType, ApiKeyKind>> = { [ApiKeyType.USER]: "user", [ApiKeyType.TEAM]: "team" };

function kindOf(type: ApiKeyType): ApiKeyKind {
  const kind = KIND[type];
  if (!kind) throw statusError(400, "type must be user or team.");
  return kind;
}

export function apiKeyMessage(row: ApiKeyRow, value = ""): ApiKey {
  const init: MessageInitShape<typeof ApiKeySchema> = {
    id: row.id,
    projectId: row.project_id,
    type: row.type === "user" ? ApiKeyType.USER : ApiKeyType.TEAM,
    ownerId: row.owner_id,
    description: row.description,
    isPublic: row.is_public,
    createdAtMillis: BigInt(row.created_at.getTime()),
    expiresAtMillis: row.expires_at ? BigInt(row.expires_at.getTime()) : undefined,
    manuallyRevokedAtMillis: row.manually_revoked_at ? BigInt(row.manually_revoked_at.getTime()) : undefined,
    value,
    lastFour: row.last_four,
  };
  return create(ApiKeySchema, init);
}

function dateOf(millis: bigint | undefined): Date | null {
  return millis === undefined ? null : new Date(Number(millis));
}

/**
 * ApiKeyService: user and team API keys. Callers (the gateway) decide who may manage which owner's keys; here the
 * owner must exist for user keys (USER_ID_DOES_NOT_EXIST otherwise); team existence is the caller's check.
 */
export function createApiKeyService(rt: AuthRuntime, sec: SecurityRuntime): ServiceImpl<typeof ApiKeyService> {
  const { apiKeys } = sec;
  return {
    async createApiKey(req) {
      const kind = kindOf(req.type);
      if (kind === "user") {
        // USER_ID_DOES_NOT_EXIST from identity for unknown users.
        await rt.identity.users.getUser({ projectId: req.projectId, userId: req.ownerId, idFromBody: true });
      } else if (!isUuid(req.ownerId)) {
        throw knownError("TEAM_NOT_FOUND", { team_id: req.ownerId });
      }
      const { row, value } = await apiKeys.create({
        projectId: req.projectId,
        kind,
        ownerId: req.ownerId,
        description: req.description,
        expiresAt: dateOf(req.expiresAtMillis),
        isPublic: req.isPublic,
      });
      return { apiKey: apiKeyMessage(row, value) };
    },

    async listApiKeys(req) {
      const rows = await apiKeys.list(req.projectId, kindOf(req.type), req.ownerId);
      return { apiKeys: rows.map((r) => apiKeyMessage(r)) };
    },

    async getApiKey(req) {
      return { apiKey: apiKeyMessage(await apiKeys.get(req.projectId, kindOf(req.type), req.apiKeyId, req.ownerId || undefined)) };
    },

    async updateApiKey(req) {
      const row = await apiKeys.update(req.projectId, kindOf(req.type), req.apiKeyId, req.ownerId || undefined, {
        description: req.description,
        expiresAt: req.expiresAtMillis ? dateOf(req.expiresAtMillis.value) : undefined,
        revoke: req.revoke,
      });
      return { apiKey: apiKeyMessage(row) };
    },

    async checkApiKey(req) {
      return { apiKey: apiKeyMessage(await apiKeys.check(req.projectId, kindOf(req.type), req.apiKey)) };
    },

    async revokeLeakedApiKey(req) {
      return { revoked: await apiKeys.revokeLeaked(req.apiKey) };
    },
  };
}
