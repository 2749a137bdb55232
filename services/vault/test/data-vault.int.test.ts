import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ProjectService } from "@vestibule/proto/identity/v1/project_service";
import { DataVaultService } from "@vestibule/proto/vault/v1/data_vault_service";
import { identityService } from "@vestibule/identity";
import { createPool, type Pool } from "@vestibule/shared/db";
import { fromConnectError } from "@vestibule/shared/errors";
import { createLogger } from "@vestibule/shared/log";
import { createServiceClient } from "@vestibule/shared/rpc";
import { generateMasterKeyEntry } from "@vestibule/shared/secrets";
import { startService, type RunningService } from "@vestibule/shared/service";
import { createTestDatabase, type TestDatabase } from "@vestibule/shared/testing";
import { vaultService } from "../src/server.ts";

const log = createLogger({ service: "test", level: "silent" });
let db: TestDatabase;
let env: Record<string, string>;
let identity: RunningService;
let vault: RunningService;
let vaultDb: Pool;
let projects: ReturnType<typeof createServiceClient<typeof ProjectService>>;
const k1 = generateMasterKeyEntry("k1");
const k2 = generateMasterKeyEntry("k2");

function client(port: number) {
  return createServiceClient(DataVaultService, { baseUrl: `http://127.0.0.1:${port}`, caller: "test", secret: env.VESTIBULE_SERVICE_SECRET! });
}

async function startVault(masterKeys: string): Promise<RunningService> {
  return startService(vaultService, { env: { ...env, VESTIBULE_MASTER_KEYS: masterKeys }, log });
}

async function code(p: Promise<unknown>): Promise<string | undefined> {
  try {
    await p;
    return undefined;
  } catch (err) {
    const e = fromConnectError(err);
    return e && "code" in e ? e.code : String(err);
  }
}

async function newProject(stores: string[]): Promise<string> {
  const { project } = await projects.createProject({ displayName: "Vault Project", configUpdateJson: "{}" });
  const override = Object.fromEntries(stores.map((s) => [`dataVault.stores.${s}`, { displayName: s }]));
  if (stores.length) await projects.updateConfigOverride({ projectId: project!.id, configOverrideJson: JSON.stringify(override) });
  return project!.id;
}

beforeAll(async () => {
  db = await createTestDatabase();
  env = { DATABASE_URL: db.url, VESTIBULE_MASTER_KEYS: k1, VESTIBULE_SERVICE_SECRET: randomBytes(32).toString("hex"), VESTIBULE_MODE: "development", LOG_LEVEL: "silent", PORT: "0" };
  identity = await startService(identityService, { env, log });
  env.VESTIBULE_IDENTITY_URL = `http://127.0.0.1:${identity.port}`;
  vault = await startVault(k1);
  vaultDb = createPool({ connectionString: db.url, schema: "vault", max: 2 });
  projects = createServiceClient(ProjectService, { baseUrl: env.VESTIBULE_IDENTITY_URL, caller: "test", secret: env.VESTIBULE_SERVICE_SECRET! });
});
afterAll(async () => {
  await vaultDb?.end();
  await vault?.stop();
  await identity?.stop();
  await db?.drop();
});

describe("data vault", () => {
  it("sets and gets values of declared stores; upsert replaces; missing keys and stores are known errors", async () => {
    const projectId = await newProject(["secrets"]);
    const v = client(vault.port);
    const hashedKey = randomBytes(32).toString("base64");
    await v.setValue({ projectId, storeId: "secrets", hashedKey, encryptedValue: "AQAfirst" });
    expect((await v.getValue({ projectId, storeId: "secrets", hashedKey })).encryptedValue).toBe("AQAfirst");
    await v.setValue({ projectId, storeId: "secrets", hashedKey, encryptedValue: "AQAsecond" });
    expect((await v.getValue({ projectId, storeId: "secrets", hashedKey })).encryptedValue).toBe("AQAsecond");

    try {
      await v.getValue({ projectId, storeId: "secrets", hashedKey: "bm90IHRoZXJl" });
      throw new Error("expected a failure");
    } catch (err) {
      expect(fromConnectError(err)).toMatchObject({
        code: "DATA_VAULT_STORE_HASHED_KEY_DOES_NOT_EXIST",
        details: { store_id: "secrets", hashed_key: "bm90IHRoZXJl" },
      });
    }
    expect(await code(v.getValue({ projectId, storeId: "nope", hashedKey }))).toBe("DATA_VAULT_STORE_DOES_NOT_EXIST");
    expect(await code(v.setValue({ projectId, storeId: "nope", hashedKey, encryptedValue: "x" }))).toBe("DATA_VAULT_STORE_DOES_NOT_EXIST");
    // Stores are per project, and a store declared later is usable at once (the config event drops the cache).
    const other = await newProject([]);
    expect(await code(v.getValue({ projectId: other, storeId: "secrets", hashedKey }))).toBe("DATA_VAULT_STORE_DOES_NOT_EXIST");
    await projects.updateConfigOverride({ projectId: other, configOverrideJson: JSON.stringify({ "dataVault.stores.secrets": { displayName: "S" } }) });
    let lastCode: string | undefined = "";
    for (let i = 0; i < 100 && lastCode !== "DATA_VAULT_STORE_HASHED_KEY_DOES_NOT_EXIST"; i++) {
      lastCode = await code(v.getValue({ projectId: other, storeId: "secrets", hashedKey }));
      if (lastCode !== "DATA_VAULT_STORE_HASHED_KEY_DOES_NOT_EXIST") await new Promise((r) => setTimeout(r, 20));
    }
    expect(lastCode).toBe("DATA_VAULT_STORE_HASHED_KEY_DOES_NOT_EXIST");
  });

  it("stores neither the hashed key nor the value as sent", async () => {
    const projectId = await newProject(["s"]);
    const hashedKey = `hk-${randomBytes(16).toString("hex")}`;
    const encryptedValue = `value-${randomBytes(16).toString("hex")}`;
    await client(vault.port).setValue({ projectId, storeId: "s", hashedKey, encryptedValue });
    const { rows } = await vaultDb.query(`SELECT e.*, k.wrapped_key FROM entries e JOIN project_keys k ON k.id = e.project_key_id WHERE e.project_id = $1`, [projectId]);
    expect(rows).toHaveLength(1);
    const dumped = JSON.stringify(rows);
    expect(dumped).not.toContain(hashedKey);
    expect(dumped).not.toContain(encryptedValue);
    expect(rows[0].ciphertext).toMatch(/^vv1\./);
    expect(rows[0].wrapped_key).toMatch(/^vsb1\./);
  });

  it("rotating a project key leaves stored rows untouched; old values still read, new writes use the new key", async () => {
    const projectId = await newProject(["s"]);
    const v = client(vault.port);
    await v.setValue({ projectId, storeId: "s", hashedKey: "old", encryptedValue: "old value" });
    const before = await vaultDb.query(`SELECT ciphertext, project_key_id FROM entries WHERE project_id = $1`, [projectId]);
    const { keyId } = await v.rotateProjectKey({ projectId });
    expect(keyId).not.toBe(before.rows[0].project_key_id);
    const after = await vaultDb.query(`SELECT ciphertext, project_key_id FROM entries WHERE project_id = $1`, [projectId]);
    expect(after.rows).toEqual(before.rows);
    expect((await v.getValue({ projectId, storeId: "s", hashedKey: "old" })).encryptedValue).toBe("old value");
    await v.setValue({ projectId, storeId: "s", hashedKey: "new", encryptedValue: "new value" });
    const { rows } = await vaultDb.query(`SELECT project_key_id FROM entries WHERE project_id = $1 AND ciphertext LIKE $2`, [projectId, `vv1.${keyId}.%`]);
    expect(rows).toHaveLength(1);
  });

  it("a master-key rotation re-wraps the data keys only; values written before still read with only the new master key", async () => {
    const projectId = await newProject(["s"]);
    await client(vault.port).setValue({ projectId, storeId: "s", hashedKey: "k", encryptedValue: "kept across rotations" });
    const snapshot = async () => ({
      entries: (await vaultDb.query(`SELECT * FROM entries ORDER BY project_id, store_id, key_hash`)).rows,
      projectKeys: (await vaultDb.query(`SELECT * FROM project_keys ORDER BY id`)).rows,
      dataKeys: (await vaultDb.query(`SELECT id, master_key_id, wrapped_key FROM data_keys ORDER BY id`)).rows,
    });
    const before = await snapshot();
    expect(before.dataKeys.every((k) => k.master_key_id === "k1")).toBe(true);

    await vault.stop();
    vault = await startVault(`${k2},${k1}`);
    const rotated = await snapshot();
    expect(rotated.entries).toEqual(before.entries);
    expect(rotated.projectKeys).toEqual(before.projectKeys);
    expect(rotated.dataKeys.map((k) => k.id)).toEqual(before.dataKeys.map((k) => k.id));
    expect(rotated.dataKeys.every((k) => k.master_key_id === "k2")).toBe(true);
    expect(rotated.dataKeys.map((k) => k.wrapped_key)).not.toEqual(before.dataKeys.map((k) => k.wrapped_key));

    await vault.stop();
    vault = await startVault(k2);
    expect((await client(vault.port).getValue({ projectId, storeId: "s", hashedKey: "k" })).encryptedValue).toBe("kept across rotations");
  });

  it("deleting the project deletes its values and keys", async () => {
    const projectId = await newProject(["s"]);
    await client(vault.port).setValue({ projectId, storeId: "s", hashedKey: "k", encryptedValue: "v" });
    await projects.deleteProject({ projectId });
    const deadline = Date.now() + 5000;
    let left = 1;
    while (left > 0 && Date.now() < deadline) {
      left = (await vaultDb.query(`SELECT 1 FROM entries WHERE project_id = $1 UNION ALL SELECT 1 FROM project_keys WHERE project_id = $1`, [projectId])).rowCount ?? 0;
      if (left > 0) await new Promise((r) => setTimeout(r, 50));
    }
    expect(left).toBe(0);
  });
});
