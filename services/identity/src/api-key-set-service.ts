import { create } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import { ApiKeySetSchema, ApiKeySetService, ProjectKeyType, type ApiKeySet } from "@vestibule/proto/identity/v1/api_key_service";
import { withTransaction } from "@vestibule/shared/db";
import { knownError, statusError } from "@vestibule/shared/errors";
import { isUuid, newId } from "@vestibule/shared/ids";
import { hashSecret, randomCode } from "@vestibule/shared/secrets";
import type { ServiceContext } from "@vestibule/shared/service";
import { IdentityEvents } from "./events.ts";
import { apiKeySetStore, type ApiKeySetRow, type KeyColumn } from "./store/api-key-set-store.ts";
import { projectStore } from "./store/project-store.ts";

/** Key prefixes of the contract: publishable `pck_`, secret server `ssk_`, super secret admin `sak_`, then 45 chars. */
const PREFIX: Record<KeyColumn, string> = {
  publishable_client_key: "pck_",
  secret_server_key: "ssk_",
  super_secret_admin_key: "sak_",
};

const COLUMN_OF_TYPE: Partial<Record<ProjectKeyType, KeyColumn>> = {
  [ProjectKeyType.PUBLISHABLE_CLIENT]: "publishable_client_key",
  [ProjectKeyType.SECRET_SERVER]: "secret_server_key",
  [ProjectKeyType.SUPER_SECRET_ADMIN]: "super_secret_admin_key",
};

export function newProjectKey(column: KeyColumn): string {
  return PREFIX[column] + randomCode(45);
}

function toMessage(row: ApiKeySetRow, full: Partial<Record<KeyColumn, string>> = {}): ApiKeySet {
  return create(ApiKeySetSchema, {
    id: row.id,
    projectId: row.project_id,
    description: row.description,
    createdAtMillis: BigInt(row.created_at.getTime()),
    expiresAtMillis: BigInt(row.expires_at?.getTime() ?? 0),
    manuallyRevokedAtMillis: row.manually_revoked_at ? BigInt(row.manually_revoked_at.getTime()) : undefined,
    publishableClientKey: full.publishable_client_key ?? "",
    secretServerKey: full.secret_server_key ?? "",
    superSecretAdminKey: full.super_secret_admin_key ?? "",
    publishableClientKeyLastFour: row.publishable_client_key_last_four ?? "",
    secretServerKeyLastFour: row.secret_server_key_last_four ?? "",
    superSecretAdminKeyLastFour: row.super_secret_admin_key_last_four ?? "",
  });
}

export function createApiKeySetService(ctx: ServiceContext): ServiceImpl<typeof ApiKeySetService> {
  const { pool, outbox } = ctx;

  return {
    async createApiKeySet(req) {
      const wanted: KeyColumn[] = [];
      if (req.hasPublishableClientKey) wanted.push("publishable_client_key");
      if (req.hasSecretServerKey) wanted.push("secret_server_key");
      if (req.hasSuperSecretAdminKey) wanted.push("super_secret_admin_key");
      if (wanted.length === 0) throw statusError(400, "At least one of has_publishable_client_key, has_secret_server_key and has_super_secret_admin_key must be true.");
      const full: Partial<Record<KeyColumn, string>> = {};
      for (const c of wanted) full[c] = newProjectKey(c);
      const row = await withTransaction(pool, async (tx) => {
        if (!(await projectStore.get(tx, req.projectId))) throw knownError("PROJECT_NOT_FOUND", { project_id: req.projectId });
        const inserted = await apiKeySetStore.insert(tx, {
          id: newId(),
          projectId: req.projectId,
          description: req.description,
          expiresAt: req.expiresAtMillis > 0n ? new Date(Number(req.expiresAtMillis)) : null,
          keys: Object.fromEntries(wanted.map((c) => [c, { hash: hashSecret(full[c]!), lastFour: full[c]!.slice(-4) }])),
        });
        await outbox.enqueue(tx, IdentityEvents.apiKeySetCreated, { projectId: req.projectId, apiKeySetId: inserted.id }, { projectId: req.projectId });
        return inserted;
      });
      return { apiKeySet: toMessage(row, full) };
    },

    async listApiKeySets(req) {
      return { apiKeySets: (await apiKeySetStore.list(pool, req.projectId)).map((r) => toMessage(r)) };
    },

    async getApiKeySet(req) {
      const row = isUuid(req.apiKeySetId) ? await apiKeySetStore.get(pool, req.projectId, req.apiKeySetId) : undefined;
      if (!row) throw knownError("API_KEY_NOT_FOUND");
      return { apiKeySet: toMessage(row) };
    },

    async updateApiKeySet(req) {
      if (!isUuid(req.apiKeySetId)) throw knownError("API_KEY_NOT_FOUND");
      const row = await withTransaction(pool, async (tx) => {
        const current = await apiKeySetStore.get(tx, req.projectId, req.apiKeySetId, true);
        if (!current) throw knownError("API_KEY_NOT_FOUND");
        const updated = await apiKeySetStore.update(tx, current.id, req.description ?? current.description, req.revoke);
        await outbox.enqueue(
          tx,
          IdentityEvents.apiKeySetUpdated,
          { projectId: req.projectId, apiKeySetId: current.id, revoked: updated.manually_revoked_at !== null },
          { projectId: req.projectId },
        );
        return updated;
      });
      return { apiKeySet: toMessage(row) };
    },

    async checkProjectKey(req) {
      const column = COLUMN_OF_TYPE[req.keyType];
      if (!column || !req.key.startsWith(PREFIX[column])) return { valid: false, apiKeySetId: "", expiresAtMillis: 0n };
      const row = await apiKeySetStore.findByKeyHash(pool, column, hashSecret(req.key));
      const now = Date.now();
      const valid =
        !!row && row.project_id === req.projectId && row.manually_revoked_at === null && (row.expires_at === null || row.expires_at.getTime() > now);
      return valid
        ? { valid: true, apiKeySetId: row.id, expiresAtMillis: BigInt(row.expires_at?.getTime() ?? 0) }
        : { valid: false, apiKeySetId: "", expiresAtMillis: 0n };
    },
  };
}
