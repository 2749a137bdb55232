import type { ServiceImpl } from "@connectrpc/connect";
import { DataVaultService } from "@vestibule/proto/vault/v1/data_vault_service";
import { knownError } from "@vestibule/shared/errors";
import { hashSecret } from "@vestibule/shared/secrets";
import { seal, sealedKeyId, unseal } from "./domain/sealing.ts";
import type { VaultRuntime } from "./runtime.ts";
import { vaultStore } from "./store/vault-store.ts";

/**
 * DataVaultService: set and get of client-encrypted values in the stores a project declares. The client's hashed
 * key is stored only as its SHA-256, its encrypted value only sealed again under the project's key, so a database
 * dump holds neither what the client sent nor anything that decrypts without the master keys.
 */
export function createDataVaultService(rt: VaultRuntime): ServiceImpl<typeof DataVaultService> {
  const { ctx, stores, keys } = rt;

  async function assertStore(projectId: string, storeId: string): Promise<void> {
    if (!(await stores.get(projectId)).has(storeId)) throw knownError("DATA_VAULT_STORE_DOES_NOT_EXIST", { store_id: storeId });
  }

  return {
    async setValue(req) {
      await assertStore(req.projectId, req.storeId);
      const where = { projectId: req.projectId, storeId: req.storeId, keyHash: hashSecret(req.hashedKey) };
      const key = await keys.activeKey(req.projectId);
      await vaultStore.upsertEntry(ctx.pool, { ...where, ciphertext: seal(key, where, req.encryptedValue), projectKeyId: key.id });
      return {};
    },

    async getValue(req) {
      await assertStore(req.projectId, req.storeId);
      const where = { projectId: req.projectId, storeId: req.storeId, keyHash: hashSecret(req.hashedKey) };
      const sealed = await vaultStore.getEntry(ctx.pool, where.projectId, where.storeId, where.keyHash);
      if (sealed === undefined) {
        throw knownError("DATA_VAULT_STORE_HASHED_KEY_DOES_NOT_EXIST", { store_id: req.storeId, hashed_key: req.hashedKey });
      }
      return { encryptedValue: unseal(await keys.keyById(req.projectId, sealedKeyId(sealed)), where, sealed) };
    },

    async rotateProjectKey(req) {
      return { keyId: await keys.rotate(req.projectId) };
    },
  };
}
