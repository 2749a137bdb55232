import { randomBytes, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ProjectDeletedSchema } from "@vestibule/proto/identity/v1/events";
import { createPool, migrate, readMigrations, withTransaction, type Pool } from "../src/db/index.ts";
import { consumeEvents, defineEvent, NatsBus, Outbox, PgBus, startOutboxRelay, type EventBus } from "../src/events/index.ts";
import { createLogger } from "../src/log/index.ts";
import { SecretBox } from "../src/secrets/index.ts";
import { createTestDatabase, deleteNatsStreams, shouldRunNatsTests, TcpProxy, testNatsUrl, uniqueEventPrefix, waitFor, type TestDatabase } from "../src/testing/index.ts";
import { join } from "node:path";

const log = createLogger({ service: "test", level: "silent" });
const runtimeMigrations = readMigrations(join(import.meta.dirname, "..", "migrations"), "runtime:");
const deleted = defineEvent("identity.project.deleted.v1", ProjectDeletedSchema);

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db?.drop();
});

async function servicePool(schema: string): Promise<Pool> {
  const pool = createPool({ connectionString: db.url, schema, max: 5 });
  await migrate(pool, schema, [
    ...runtimeMigrations,
    { version: "0001_create_effects", sql: "CREATE TABLE effects (event_id uuid NOT NULL, project_id text NOT NULL)" },
  ]);
  return pool;
}

describe("migrations", () => {
  it("applies once, even from two replicas at the same time, and refuses an edited migration", async () => {
    const a = createPool({ connectionString: db.url, schema: "mig_test" });
    const b = createPool({ connectionString: db.url, schema: "mig_test" });
    const migrations = [{ version: "0001_create_things", sql: "CREATE TABLE things (id int PRIMARY KEY)" }];
    const [ra, rb] = await Promise.all([migrate(a, "mig_test", migrations), migrate(b, "mig_test", migrations)]);
    expect([...ra, ...rb]).toEqual(["0001_create_things"]);
    expect(await migrate(a, "mig_test", migrations)).toEqual([]);
    await expect(migrate(a, "mig_test", [{ version: "0001_create_things", sql: "CREATE TABLE things (id bigint)" }])).rejects.toThrow(/changed after it was applied/);
    const failing = [...migrations, { version: "0002_broken", sql: "CREATE TABLE broken (" }];
    await expect(migrate(a, "mig_test", failing)).rejects.toThrow(/0002_broken failed/);
    const { rows } = await a.query("SELECT version FROM mig_test.schema_migrations ORDER BY version");
    expect(rows.map((r) => r.version)).toEqual(["0001_create_things"]);
    await Promise.all([a.end(), b.end()]);
  });
});

describe("SecretBox", () => {
  it("encrypts with data keys wrapped by the master key, binds context, and survives master key rotation", async () => {
    const pool = await servicePool("secrets_test");
    const k1 = { id: "k1", key: randomBytes(32) };
    const k2 = { id: "k2", key: randomBytes(32) };
    const box = new SecretBox(pool, [k1]);
    const secret = `smtp-password-${randomBytes(8).toString("hex")}`;
    const sealed = await box.encrypt(secret, "project:p1:smtp");
    expect(sealed).toMatch(/^vsb1\./);
    expect(sealed).not.toContain(secret);
    expect(await box.decrypt(sealed, "project:p1:smtp")).toBe(secret);
    await expect(box.decrypt(sealed, "project:p2:smtp")).rejects.toThrow();

    // Nothing in the table reveals the data key or the secret.
    const { rows } = await pool.query("SELECT wrapped_key FROM data_keys");
    expect(rows).toHaveLength(1);

    // Rotate: k2 becomes active; re-wrap data keys; a box that only knows k2 still decrypts old values.
    const rotating = new SecretBox(pool, [k2, k1]);
    expect(await rotating.rewrapDataKeys()).toBe(1);
    const onlyK2 = new SecretBox(pool, [k2]);
    expect(await onlyK2.decrypt(sealed, "project:p1:smtp")).toBe(secret);
    await expect(new SecretBox(pool, [k1]).decrypt(sealed, "project:p1:smtp")).rejects.toThrow(/not configured/);

    // A new data key: old ciphertexts keep decrypting.
    await onlyK2.rotateDataKey();
    const sealed2 = await onlyK2.encrypt("second", "c");
    expect(sealed2.split(".")[1]).not.toBe(sealed.split(".")[1]);
    expect(await onlyK2.decrypt(sealed, "project:p1:smtp")).toBe(secret);
    await pool.end();
  });

  it("refuses a ciphertext whose GCM tag is cut short or whose IV is not 12 bytes (issue 18)", async () => {
    const pool = await servicePool("secrets_lengths_test");
    const box = new SecretBox(pool, [{ id: "k1", key: randomBytes(32) }]);
    const sealed = await box.encrypt("8 bytes!", "c");
    const [v, keyId, iv, body] = sealed.split(".") as [string, string, string, string];
    const bytes = Buffer.from(body, "base64url");
    expect(bytes).toHaveLength(8 + 16);
    // The ciphertext with the first 4 bytes of its tag: GCM accepts 4-byte tags unless told the length, which makes a
    // forgery a 1 in 2^32 guess instead of 2^128.
    const truncated = `${v}.${keyId}.${iv}.${bytes.subarray(0, 12).toString("base64url")}`;
    await expect(box.decrypt(truncated, "c")).rejects.toThrow(/malformed/);
    const longIv = `${v}.${keyId}.${Buffer.concat([Buffer.from(iv, "base64url"), Buffer.alloc(4)]).toString("base64url")}.${body}`;
    await expect(box.decrypt(longIv, "c")).rejects.toThrow(/malformed/);
    expect(await box.decrypt(sealed, "c")).toBe("8 bytes!");
    await pool.end();
  });
});

/** Shared scenario: events enqueued in committed transactions reach an idempotent consumer exactly once. */
async function outboxScenario(bus: EventBus, schema: string) {
  const pool = await servicePool(schema);
  const outbox = new Outbox("identity", schema);
  const relay = startOutboxRelay({ pool, connectionString: db.url, schema, bus, log, channel: outbox.channel });
  const consumer = `${schema}-consumer`;
  const sub = await consumeEvents({
    bus,
    pool,
    log,
    consumer,
    event: deleted,
    handler: async ({ envelope, payload }, client) => {
      await client.query("INSERT INTO effects (event_id, project_id) VALUES ($1, $2)", [envelope.id, payload.projectId]);
    },
  });
  try {
    const committedId = await withTransaction(pool, (tx) => outbox.enqueue(tx, deleted, { projectId: "p-committed" }, { projectId: "p-committed" }));
    await expect(
      withTransaction(pool, async (tx) => {
        await outbox.enqueue(tx, deleted, { projectId: "p-rolled-back" });
        throw new Error("state change failed");
      }),
    ).rejects.toThrow("state change failed");

    const effects = await waitFor(async () => {
      const { rows } = await pool.query("SELECT event_id, project_id FROM effects");
      return rows.length > 0 ? rows : undefined;
    });
    expect(effects).toEqual([{ event_id: committedId, project_id: "p-committed" }]);

    // The relay publishing the same event again (e.g. it crashed before marking it) is de-duplicated by id, and a
    // redelivery to the consumer changes nothing.
    const { rows: outRows } = await pool.query("SELECT id, subject, envelope FROM outbox WHERE id = $1", [committedId]);
    await bus.publish({ id: committedId, subject: outRows[0].subject, data: new Uint8Array(outRows[0].envelope) });
    await new Promise((r) => setTimeout(r, 500));
    const { rows: after } = await pool.query("SELECT count(*)::int AS n FROM effects");
    expect(after[0].n).toBe(1);
    const { rows: published } = await pool.query("SELECT count(*)::int AS n FROM outbox WHERE published_at IS NOT NULL");
    expect(published[0].n).toBe(1);
  } finally {
    await sub.stop();
    await relay.stop();
    await pool.end();
  }
}

/** Shared scenario: a consumer held inside its handler lags by the events published meanwhile, and catches up. */
async function consumerLagScenario(bus: EventBus) {
  // A subject of its own: other scenarios' consumers on this database's bus must not meet these bare payloads.
  const subject = "identity.lag.measured.v1";
  const durable = `lag-${randomBytes(4).toString("hex")}`;
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  let handled = 0;
  const sub = await bus.consume({
    durable,
    subject,
    handler: async () => {
      await held;
      handled++;
    },
  });
  try {
    for (let i = 0; i < 5; i++) await bus.publish({ id: randomUUID(), subject, data: new Uint8Array([i]) });
    const lagOf = async () => (await bus.consumerLag()).find((l) => l.consumer === durable)?.pending;
    expect(await waitFor(async () => ((await lagOf()) === 5 ? 5 : undefined), 10_000)).toBe(5);
    release();
    await waitFor(async () => ((await lagOf()) === 0 && handled === 5 ? true : undefined), 10_000);
  } finally {
    release();
    await sub.stop();
  }
}

describe("consumer lag", () => {
  it("counts what a durable consumer has not handled yet, on the embedded Postgres bus", async () => {
    const bus = new PgBus(db.url, log);
    try {
      await consumerLagScenario(bus);
    } finally {
      await bus.close();
    }
  });

  it("counts what a durable consumer has not handled yet, on NATS JetStream", async (t) => {
    if (!(await shouldRunNatsTests())) return t.skip();
    const prefix = uniqueEventPrefix();
    const bus = new NatsBus(testNatsUrl(), log, prefix);
    try {
      await bus.ready();
      await consumerLagScenario(bus);
    } finally {
      await bus.close();
      await deleteNatsStreams(prefix);
    }
  });
});

describe("embedded Postgres bus", () => {
  it("delivers an event whose publish commits after a later publish started (sequence numbers follow commit order)", async () => {
    const bus = new PgBus(db.url, log);
    const subject = `test.order.${randomBytes(4).toString("hex")}.v1`;
    const got: string[] = [];
    const sub = await bus.consume({ durable: `order-${randomBytes(4).toString("hex")}`, subject, handler: async (m) => void got.push(m.id) });
    const slowPool = createPool({ connectionString: db.url, schema: "public", max: 1 });
    const slow = await slowPool.connect();
    try {
      const [first, second] = [randomUUID(), randomUUID()];
      // A publish whose transaction stays open (as a slow commit would), then another publish that would commit first.
      await slow.query("BEGIN");
      await slow.query("SELECT vestibule_bus.publish($1, $2, $3, NULL)", [first, subject, Buffer.from([1])]);
      const later = bus.publish({ id: second, subject, data: new Uint8Array([2]) });
      await new Promise((r) => setTimeout(r, 1_500));
      await slow.query("COMMIT");
      await later;
      await waitFor(async () => (got.length === 2 ? true : undefined), 10_000);
      expect(got).toEqual([first, second]);
    } finally {
      slow.release();
      await slowPool.end();
      await sub.stop();
      await bus.close();
    }
  });

  it("counts attempts per message: a failing one rises, the ones after it in its batch are not counted", async () => {
    const bus = new PgBus(db.url, log);
    const subject = `test.attempts.${randomBytes(4).toString("hex")}.v1`;
    const ids = [randomUUID(), randomUUID(), randomUUID()];
    for (const [i, id] of ids.entries()) await bus.publish({ id, subject, data: new Uint8Array([i]) });
    // Events of another subject in between are not this consumer's.
    await bus.publish({ id: randomUUID(), subject: `${subject}.other`, data: new Uint8Array([9]) });
    const seen: [string, number][] = [];
    let failOnce = true;
    const sub = await bus.consume({
      durable: `attempts-${randomBytes(4).toString("hex")}`,
      subject,
      handler: async (m) => {
        seen.push([m.id, m.attempt]);
        if (m.id === ids[1] && failOnce) {
          failOnce = false;
          throw new Error("handler failed");
        }
      },
    });
    try {
      await waitFor(async () => (seen.length === 4 ? true : undefined), 10_000);
      expect(seen).toEqual([[ids[0], 1], [ids[1], 1], [ids[1], 2], [ids[2], 1]]);
      expect((await bus.consumerLag())[0]?.pending).toBe(0);
    } finally {
      await sub.stop();
      await bus.close();
    }
  });
});

describe("outbox, relay and idempotent consumers", () => {
  it("deliver through the embedded Postgres bus", async () => {
    const bus = new PgBus(db.url, log);
    try {
      await outboxScenario(bus, "outbox_pg");
    } finally {
      await bus.close();
    }
  });

  it("keep JetStream streams bounded by the retention, also streams made before it was set", async (t) => {
    if (!(await shouldRunNatsTests())) return t.skip();
    const prefix = uniqueEventPrefix();
    const { connect } = await import("@nats-io/transport-node");
    const { jetstreamManager } = await import("@nats-io/jetstream");
    const nc = await connect({ servers: testNatsUrl() });
    const jsm = await jetstreamManager(nc);
    const stream = (producer: string) => `${prefix.replace(/[^A-Za-z0-9_-]/g, "_")}_VESTIBULE_${producer.toUpperCase()}`;
    // An old stream without max_age, as earlier versions created them.
    await jsm.streams.add({ name: stream("identity"), subjects: [`${prefix}.identity.>`] });
    const bus = new NatsBus(testNatsUrl(), log, prefix, 36);
    try {
      await bus.ready();
      for (const producer of ["identity", "auth"]) {
        await bus.publish({ id: randomBytes(8).toString("hex"), subject: `${producer}.thing.happened.v1`, data: new Uint8Array([1]) });
        expect((await jsm.streams.info(stream(producer))).config.max_age).toBe(36 * 3600 * 1_000_000_000);
      }
    } finally {
      await bus.close();
      await nc.close();
      await deleteNatsStreams(prefix);
    }
  });

  it("deliver through NATS JetStream", async (t) => {
    if (!(await shouldRunNatsTests())) return t.skip();
    const prefix = uniqueEventPrefix();
    const bus = new NatsBus(testNatsUrl(), log, prefix);
    try {
      await bus.ready();
      await outboxScenario(bus, "outbox_nats");
    } finally {
      await bus.close();
      await deleteNatsStreams(prefix);
    }
  });

  it("keeps an event written while NATS is down and delivers it when NATS is back", async (t) => {
    if (!(await shouldRunNatsTests())) return t.skip();
    const target = new URL(testNatsUrl());
    const proxy = new TcpProxy(target.hostname, Number(target.port || 4222));
    const port = await proxy.start();
    const prefix = uniqueEventPrefix();
    const schema = "outbox_down";
    const pool = await servicePool(schema);
    const outbox = new Outbox("identity", schema);
    // The producer reaches NATS only through the proxy; the consumer connects directly.
    const producerBus = new NatsBus(`nats://127.0.0.1:${port}`, log, prefix);
    const consumerBus = new NatsBus(testNatsUrl(), log, prefix);
    await producerBus.ready();
    const relay = startOutboxRelay({ pool, connectionString: db.url, schema, bus: producerBus, log, channel: outbox.channel });
    const sub = await consumeEvents({
      bus: consumerBus,
      pool,
      log,
      consumer: `${schema}-consumer`,
      event: deleted,
      handler: async ({ envelope, payload }, client) => {
        await client.query("INSERT INTO effects (event_id, project_id) VALUES ($1, $2)", [envelope.id, payload.projectId]);
      },
    });
    try {
      await proxy.stop();
      const id = await withTransaction(pool, (tx) => outbox.enqueue(tx, deleted, { projectId: "written-while-down" }));
      // The relay tries and fails; the event stays in the outbox with its error recorded.
      const failed = await waitFor(async () => {
        const { rows } = await pool.query("SELECT attempts, last_error, published_at FROM outbox WHERE id = $1", [id]);
        return rows[0].attempts > 0 ? rows[0] : undefined;
        // A publish to an unreachable server fails only after the client's own timeout, longer on a loaded machine.
      }, 30_000);
      expect(failed.published_at).toBeNull();
      expect(failed.last_error).toBeTruthy();

      await proxy.start(port);
      const effect = await waitFor(async () => {
        const { rows } = await pool.query("SELECT event_id, project_id FROM effects WHERE event_id = $1", [id]);
        return rows[0];
      }, 30_000);
      expect(effect.project_id).toBe("written-while-down");
    } finally {
      await sub.stop();
      await relay.stop();
      await Promise.all([producerBus.close(), consumerBus.close()]);
      await proxy.stop();
      await pool.end();
      await deleteNatsStreams(prefix);
    }
  }, 60_000);
});
