/**
 * RPC clients over a service's replicas (rpc/replicas.ts), against real Connect servers in their own processes on
 * loopback, killed with SIGKILL as a crash would.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { createInterface } from "node:readline";
import { afterEach, describe, expect, it } from "vitest";
import { Code, ConnectError } from "@connectrpc/connect";
import { UserService } from "@vestibule/proto/identity/v1/user_service";
import { createServiceClient, serviceTransport } from "../src/rpc/index.ts";

const FIXTURE = fileURLToPath(new URL("./fixtures/replica-server.ts", import.meta.url));
const SECRET = "replicas-test-secret-0123456789abcdef0123456789";

interface Replica {
  readonly name: string;
  readonly url: string;
  readonly port: number;
  readonly lines: string[];
  readonly proc: ChildProcess;
  kill(): Promise<void>;
}

const running = new Set<ChildProcess>();
afterEach(() => {
  for (const p of running) p.kill("SIGKILL");
  running.clear();
});

async function startReplica(name: string, port = 0): Promise<Replica> {
  const proc = spawn(process.execPath, ["--import", "tsx", FIXTURE], {
    env: { ...process.env, REPLICA_NAME: name, PORT: String(port), VESTIBULE_SERVICE_SECRET: SECRET },
    stdio: ["ignore", "pipe", "inherit"],
  });
  running.add(proc);
  const lines: string[] = [];
  const listening = new Promise<number>((resolve, reject) => {
    createInterface({ input: proc.stdout! }).on("line", (line) => {
      lines.push(line);
      const m = /^listening (\d+)$/.exec(line);
      if (m) resolve(Number(m[1]));
    });
    proc.once("exit", (code) => reject(new Error(`${name} exited (${code}) before listening`)));
  });
  const actual = await listening;
  const exited = once(proc, "exit");
  return {
    name,
    port: actual,
    url: `http://127.0.0.1:${actual}`,
    lines,
    proc,
    async kill() {
      proc.kill("SIGKILL");
      await exited;
      running.delete(proc);
    },
  };
}

const waitForLine = async (r: Replica, line: string): Promise<void> => {
  for (let i = 0; i < 200 && !r.lines.includes(line); i++) await new Promise((res) => setTimeout(res, 10));
  if (!r.lines.includes(line)) throw new Error(`${r.name} never printed "${line}"`);
};

const clientOf = (urls: readonly string[], caller: string) =>
  createServiceClient(UserService, { baseUrl: urls.join(","), caller, secret: SECRET, timeoutMs: 5_000 });

describe("RPC clients over replicas (comma-separated URLs)", () => {
  it("spread calls round-robin over the replicas", async () => {
    const [a, b] = await Promise.all([startReplica("a"), startReplica("b")]);
    const client = clientOf([a.url, b.url], "round-robin");
    const answered = [];
    for (let i = 0; i < 6; i++) answered.push((await client.getUser({ projectId: "p", userId: "u" })).user?.id);
    expect(answered.filter((n) => n === "a")).toHaveLength(3);
    expect(answered.filter((n) => n === "b")).toHaveLength(3);
  });

  it("move every call, writes too, to a live replica when one is down (the request never left), and come back to it", async () => {
    const [a, b] = await Promise.all([startReplica("a"), startReplica("b")]);
    const client = clientOf([a.url, b.url], "one-down");
    await client.getUser({ projectId: "p", userId: "u" });
    await client.getUser({ projectId: "p", userId: "u" });
    await a.kill();
    for (let i = 0; i < 6; i++) {
      expect((await client.getUser({ projectId: "p", userId: "u" })).user?.id).toBe("b");
      expect((await client.updateUser({ projectId: "p", userId: "u" })).user?.id).toBe("b");
    }
    // Back on its port: after the down time (2 s) it gets calls again.
    const a2 = await startReplica("a2", a.port);
    await new Promise((r) => setTimeout(r, 2_100));
    const answered = new Set<string | undefined>();
    for (let i = 0; i < 4; i++) answered.add((await client.getUser({ projectId: "p", userId: "u" })).user?.id);
    expect(answered).toEqual(new Set(["a2", "b"]));
    expect(a2.lines).toContain("getUser p");
  });

  it("retry a read cut off by a crash on the other replica, but fail a write cut off by a crash (it may have run)", async () => {
    const [a, b] = await Promise.all([startReplica("a"), startReplica("b")]);
    const client = clientOf([a.url, b.url], "cut-off");
    await Promise.all([client.getUser({ projectId: "p", userId: "u" }), client.getUser({ projectId: "p", userId: "u" })]);

    const read = client.getUser({ projectId: "slow", userId: "u" });
    await Promise.race([waitForLine(a, "getUser slow"), waitForLine(b, "getUser slow")]);
    const [victim, survivor] = a.lines.includes("getUser slow") ? [a, b] : [b, a];
    await victim.kill();
    expect((await read).user?.id).toBe(survivor.name);
    expect(survivor.lines).toContain("getUser slow");

    // The victim is marked down: the write goes to the survivor; start another replica on the victim's port to get one there.
    const again = await startReplica("again", victim.port);
    await new Promise((r) => setTimeout(r, 2_100));
    const writes: Array<Promise<unknown>> = [];
    for (let i = 0; i < 2; i++) writes.push(client.updateUser({ projectId: "slow", userId: "u" }).catch((e: unknown) => e));
    await Promise.all([waitForLine(again, "updateUser slow"), waitForLine(survivor, "updateUser slow")]);
    await again.kill();
    const results = await Promise.all(writes);
    const failed = results.filter((r) => r instanceof ConnectError);
    expect(failed).toHaveLength(1);
    expect((failed[0] as ConnectError).code).toBe(Code.Unavailable);
    // Not run a second time on the survivor.
    expect(survivor.lines.filter((l) => l === "updateUser slow")).toHaveLength(1);
  });

  it("keep one plain transport for a single URL", async () => {
    const a = await startReplica("a");
    const opts = { baseUrl: a.url, caller: "single", secret: SECRET };
    expect(serviceTransport(opts)).toBe(serviceTransport({ ...opts }));
    expect(serviceTransport(opts)).not.toBe(serviceTransport({ ...opts, baseUrl: `${a.url},${a.url}` }));
    await a.kill();
    const err = await clientOf([a.url], "single").getUser({ projectId: "p", userId: "u" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConnectError);
    expect((err as ConnectError).code).toBe(Code.Unavailable);
  });
});
