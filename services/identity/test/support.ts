import { randomBytes } from "node:crypto";
import type { DescMessage, MessageShape } from "@bufbuild/protobuf";
import type { Client } from "@connectrpc/connect";
import { ContactChannelService } from "@vestibule/proto/identity/v1/contact_channel_service";
import { ProjectService } from "@vestibule/proto/identity/v1/project_service";
import { UserService } from "@vestibule/proto/identity/v1/user_service";
import { createPool, type Pool } from "@vestibule/shared/db";
import { decodeEnvelope, decodePayload, type EventDefinition } from "@vestibule/shared/events";
import { createLogger } from "@vestibule/shared/log";
import { createServiceClient } from "@vestibule/shared/rpc";
import { generateMasterKeyEntry } from "@vestibule/shared/secrets";
import { startService, type RunningService } from "@vestibule/shared/service";
import { createTestDatabase, type TestDatabase } from "@vestibule/shared/testing";
import { identityService } from "../src/server.ts";

export { rpcError } from "@vestibule/shared/testing";

export interface IdentityHarness {
  readonly db: TestDatabase;
  readonly service: RunningService;
  /** A pool on the identity schema, for asserting rows. */
  readonly pool: Pool;
  readonly users: Client<typeof UserService>;
  readonly channels: Client<typeof ContactChannelService>;
  readonly projects: Client<typeof ProjectService>;
  newProject(): Promise<string>;
  stop(): Promise<void>;
}

const log = createLogger({ service: "test", level: "silent" });

/**
 * The identity service in this process on a fresh database (real gRPC over h2c, real Postgres). The outbox relay is
 * stopped, so the outbox rows stay exactly as the RPCs' transactions wrote them (unpublished, original xmin).
 */
export async function startIdentity(): Promise<IdentityHarness> {
  const db = await createTestDatabase();
  const env: Record<string, string> = {
    DATABASE_URL: db.url,
    VESTIBULE_MASTER_KEYS: generateMasterKeyEntry(),
    VESTIBULE_SERVICE_SECRET: randomBytes(32).toString("hex"),
    VESTIBULE_MODE: "development", // tests and benchmarks use the development conveniences (dev mailbox)
    LOG_LEVEL: "silent",
    // Small pools: two test files run at once on a PostgreSQL that may allow only 100 connections.
    VESTIBULE_DB_POOL_SIZE: "4",
    PORT: "0",
  };
  const service = await startService(identityService, { env, log });
  await service.relay.stop();
  const rpc = { baseUrl: `http://127.0.0.1:${service.port}`, caller: "test", secret: env.VESTIBULE_SERVICE_SECRET!, timeoutMs: 60_000 };
  const projects = createServiceClient(ProjectService, rpc);
  const pool = createPool({ connectionString: db.url, schema: "identity", max: 4 });
  return {
    db,
    service,
    pool,
    users: createServiceClient(UserService, rpc),
    channels: createServiceClient(ContactChannelService, rpc),
    projects,
    async newProject() {
      const { project } = await projects.createProject({ displayName: "Test project" });
      return project!.id;
    },
    async stop() {
      await pool.end();
      await service.stop();
      await db.drop();
    },
  };
}

export interface OutboxEvent<Desc extends DescMessage> {
  readonly xmin: string;
  readonly projectId: string;
  readonly payload: MessageShape<Desc>;
}

/** The outbox rows of one event type, oldest first, with the id of the transaction that wrote each. */
export async function outboxEvents<Desc extends DescMessage>(pool: Pool, def: EventDefinition<Desc>): Promise<OutboxEvent<Desc>[]> {
  const { rows } = await pool.query<{ envelope: Buffer; xmin: string }>(
    `SELECT envelope, xmin::text AS xmin FROM outbox WHERE subject = $1 ORDER BY seq`,
    [def.type],
  );
  return rows.map((r) => {
    const envelope = decodeEnvelope(new Uint8Array(r.envelope));
    return { xmin: r.xmin, projectId: envelope.projectId, payload: decodePayload(def, envelope) };
  });
}

/** The id of the transaction that last wrote a row. */
export async function rowXmin(pool: Pool, table: string, id: string): Promise<string | undefined> {
  const { rows } = await pool.query<{ xmin: string }>(`SELECT xmin::text AS xmin FROM ${table} WHERE id = $1`, [id]);
  return rows[0]?.xmin;
}

