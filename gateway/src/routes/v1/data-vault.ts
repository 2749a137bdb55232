import { Type } from "typebox";
import { NonEmptyString, Obj } from "../../validation/index.ts";
import { defineRoute } from "../route.ts";

const SERVER = ["server", "admin"] as const;
const StoreParams = Obj({ store_id: Type.String() });

/**
 * Data vault (contract endpoints.md §11): values hashed and encrypted by the client (see contract sdk-calls.md §4),
 * stored by the vault service, which encrypts them once more at rest. Server and admin access only.
 */
export const dataVaultSetRoute = defineRoute({
  method: "POST",
  path: "/data-vault/stores/:store_id/set",
  summary: "Store a client-encrypted value under a hashed key (insert or replace)",
  tags: ["Data vault"],
  access: SERVER,
  schemas: { params: StoreParams, body: Obj({ hashed_key: NonEmptyString(), encrypted_value: Type.String() }) },
  async handler({ auth, params, body, clients }) {
    await clients.dataVault.setValue({ projectId: auth.projectId, storeId: params.store_id, hashedKey: body.hashed_key, encryptedValue: body.encrypted_value });
    return { json: { success: true } };
  },
});

export const dataVaultGetRoute = defineRoute({
  method: "POST",
  path: "/data-vault/stores/:store_id/get",
  summary: "Read the client-encrypted value of a hashed key",
  tags: ["Data vault"],
  access: SERVER,
  schemas: { params: StoreParams, body: Obj({ hashed_key: NonEmptyString() }) },
  async handler({ auth, params, body, clients }) {
    const { encryptedValue } = await clients.dataVault.getValue({ projectId: auth.projectId, storeId: params.store_id, hashedKey: body.hashed_key });
    return { json: { encrypted_value: encryptedValue } };
  },
});
