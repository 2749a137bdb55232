import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pageStatement } from "../src/store/user-listing.ts";
import { rpcError, startIdentity, type IdentityHarness } from "./support.ts";

let h: IdentityHarness;
let projectId: string;
/** Users in sign-up order (ids), the anonymous ones included. */
const all: Array<{ id: string; name: string; anonymous: boolean }> = [];

const NAMES = ["Ada Lovelace", "Alan Turing", "Grace Hopper", "Edsger Dijkstra", "Barbara Liskov", "Donald Knuth", "Ken Thompson", "Radia Perlman", "Tony Hoare", "Frances Allen"];

beforeAll(async () => {
  h = await startIdentity();
  projectId = await h.newProject();
  for (const [i, name] of NAMES.entries()) {
    const anonymous = i % 4 === 3;
    const { user } = await h.users.createUser({
      projectId,
      displayName: name,
      primaryEmail: anonymous ? undefined : `${name.split(" ")[1]!.toLowerCase()}@Example.org`,
      isAnonymous: anonymous,
    });
    all.push({ id: user!.id, name, anonymous });
  }
  // Four users share one sign-up instant, so the order falls back to the id.
  const tie = all.slice(4, 8).map((u) => u.id);
  await h.pool.query(`UPDATE users SET signed_up_at = (SELECT signed_up_at FROM users WHERE id = $1) WHERE id = ANY($2::uuid[])`, [tie[0], tie]);
  const { rows } = await h.pool.query<{ id: string }>(`SELECT id FROM users WHERE project_id = $1 ORDER BY signed_up_at, id`, [projectId]);
  all.sort((a, b) => rows.findIndex((r) => r.id === a.id) - rows.findIndex((r) => r.id === b.id));
  // A user of another project never shows up.
  const other = await h.newProject();
  await h.users.createUser({ projectId: other, displayName: "Ada Other" });
});
afterAll(async () => {
  await h?.stop();
});

interface ListInit {
  limit?: number;
  cursor?: string;
  desc?: boolean;
  query?: string;
  includeAnonymous?: boolean;
  userIds?: string[];
  restrictToUserIds?: boolean;
  orderBy?: string;
}

async function list(req: ListInit): Promise<{ ids: string[]; next: string }> {
  const res = await h.users.listUsers({ projectId, ...req });
  return { ids: res.users.map((u) => u.id), next: res.nextCursor };
}

/** Every page from the start, following next_cursor. */
async function pages(req: ListInit): Promise<string[][]> {
  const out: string[][] = [];
  let cursor = "";
  for (;;) {
    const page = await list({ ...req, cursor });
    out.push(page.ids);
    if (!page.next) return out;
    expect(page.ids).not.toContain(page.next);
    cursor = page.next;
  }
}

const registered = () => all.filter((u) => !u.anonymous).map((u) => u.id);

describe("ListUsers", () => {
  it("lists in sign-up order (ties by id), without anonymous users, unpaginated when limit is 0", async () => {
    expect(await list({})).toEqual({ ids: registered(), next: "" });
    expect(await list({ includeAnonymous: true })).toEqual({ ids: all.map((u) => u.id), next: "" });
  });

  it("pages forwards: a page starts at the cursor (inclusive) and next_cursor is the first user of the next page", async () => {
    const ids = registered();
    const first = await list({ limit: 3 });
    expect(first).toEqual({ ids: ids.slice(0, 3), next: ids[3] });
    const second = await list({ limit: 3, cursor: first.next });
    expect(second).toEqual({ ids: ids.slice(3, 6), next: ids[6] });
    expect(await pages({ limit: 3 })).toEqual([ids.slice(0, 3), ids.slice(3, 6), ids.slice(6)]);
    // An exact multiple of the limit ends with an empty next cursor, not an empty page.
    const exact = await pages({ limit: ids.length });
    expect(exact).toEqual([ids]);
    expect(await pages({ limit: 2, includeAnonymous: true })).toEqual(chunk(all.map((u) => u.id), 2));
  });

  it("pages backwards with desc", async () => {
    const ids = registered().reverse();
    expect(await pages({ limit: 4, desc: true })).toEqual(chunk(ids, 4));
    const page = await list({ limit: 2, desc: true, cursor: ids[3] });
    expect(page).toEqual({ ids: ids.slice(3, 5), next: ids[5] });
  });

  it("searches display names and contact channel values case-insensitively, and exact ids", async () => {
    const byName = (n: string) => all.find((u) => u.name === n)!.id;
    expect((await list({ query: "ALAN" })).ids).toEqual([byName("Alan Turing")]);
    expect((await list({ query: "DA lov" })).ids).toEqual([byName("Ada Lovelace")]);
    expect((await list({ query: "hopper@example" })).ids).toEqual([byName("Grace Hopper")]);
    // "example.org" is in every e-mail; anonymous users have none and are not listed anyway.
    expect((await list({ query: "EXAMPLE.ORG" })).ids).toEqual(registered());
    expect((await list({ query: all[2]!.id.toUpperCase() })).ids).toEqual([all[2]!.id]);
    expect((await list({ query: "nobody-matches-this" })).ids).toEqual([]);
    // Wildcards in the query are literal characters.
    expect((await list({ query: "%" })).ids).toEqual([]);
    expect((await list({ query: "_" })).ids).toEqual([]);
    // A user matching in name and e-mail appears once; paging works on search results.
    const a = await pages({ query: "a", limit: 2 });
    const expected = all.filter((u) => !u.anonymous && (u.name.toLowerCase().includes("a") || `${u.name.split(" ")[1]!.toLowerCase()}@example.org`.includes("a"))).map((u) => u.id);
    expect(a.flat()).toEqual(expected);
    expect(new Set(a.flat()).size).toBe(a.flat().length);
    expect(await pages({ query: "a", limit: 3, desc: true })).toEqual(chunk([...expected].reverse(), 3));
  });

  it("finds anonymous users by name only with include_anonymous", async () => {
    const anon = all.find((u) => u.anonymous)!;
    expect((await list({ query: anon.name })).ids).toEqual([]);
    expect((await list({ query: anon.name, includeAnonymous: true })).ids).toEqual([anon.id]);
  });

  it("restricts to given user ids", async () => {
    const some = [all[0]!.id, all[3]!.id, all[5]!.id];
    expect((await list({ restrictToUserIds: true, userIds: some, includeAnonymous: true })).ids).toEqual(some);
    expect((await list({ restrictToUserIds: true, userIds: [] })).ids).toEqual([]);
    expect((await list({ restrictToUserIds: false, userIds: some })).ids).toEqual(registered());
  });

  it("ends the listing at a cursor whose user is gone, and rejects malformed input", async () => {
    expect(await list({ limit: 2, cursor: "0b3c2f4e-5d6a-4b7c-8d9e-0f1a2b3c4d5e" })).toEqual({ ids: [], next: "" });
    expect(await rpcError(h.users.listUsers({ projectId, cursor: "nope" }))).toMatchObject({ httpStatus: 400 });
    expect(await rpcError(h.users.listUsers({ projectId, limit: -1 }))).toMatchObject({ httpStatus: 400 });
  });
});

describe("ListUsers page statement (issue 19: a page of 100 at a million users)", () => {
  it("pages in last-activity order from a cursor, whose position is its own last activity", async () => {
    const ids = registered();
    // The first user was active last, so it moves to the end; the others keep their sign-up instants.
    await h.pool.query(`INSERT INTO user_activity (user_id, project_id, last_active_at) VALUES ($1, $2, now() + interval '1 day')`, [ids[0], projectId]);
    try {
      const order = [...ids.slice(1), ids[0]!];
      expect(await pages({ limit: 2, orderBy: "last_active_at" })).toEqual(chunk(order, 2));
      expect(await pages({ limit: 3, orderBy: "last_active_at", desc: true })).toEqual(chunk([...order].reverse(), 3));
      expect(await list({ limit: 2, orderBy: "last_active_at", cursor: ids[0] })).toEqual({ ids: [ids[0]], next: "" });
    } finally {
      await h.pool.query(`DELETE FROM user_activity WHERE user_id = $1`, [ids[0]]);
    }
  });

  it("gives an empty page for a cursor user of another project", async () => {
    const other = await h.newProject();
    const { user } = await h.users.createUser({ projectId: other, displayName: "Elsewhere" });
    expect(await list({ limit: 2, cursor: user!.id })).toEqual({ ids: [], next: "" });
  });

  it("is one statement: the cursor's position starts the walk of the sign-up index, in either direction, no sort under the LIMIT", async () => {
    const client = await h.pool.connect();
    try {
      // Ten users make a sequential scan cheapest; without it the plan shows whether the index serves the order.
      await client.query("SET enable_seqscan = off");
      for (const desc of [false, true]) {
        const { text, values } = pageStatement({ projectId, limit: 100, cursor: all[2]!.id, desc, includeAnonymous: false, excludeRestricted: { requireEmailVerification: false } });
        const { rows } = await client.query<{ "QUERY PLAN": [{ Plan: PlanNode }] }>(`EXPLAIN (FORMAT JSON) ${text}`, values);
        const limit = findNode(rows[0]!["QUERY PLAN"][0].Plan, (n) => n["Node Type"] === "Limit")!;
        const scan = limit.Plans!.find((n) => n["Parent Relationship"] === "Outer")!;
        expect(scan).toMatchObject({ "Node Type": "Index Scan", "Index Name": "users_project_signed_up_registered", "Scan Direction": desc ? "Backward" : "Forward" });
        // The cursor's position is the statement's InitPlan ($0 up to PostgreSQL 17, "(InitPlan 1).col1" from 18).
        expect(scan["Index Cond"]).toMatch(desc ? /ROW\(signed_up_at, id\) <= ROW\((\$0|\(InitPlan 1\)\.col1), / : /ROW\(signed_up_at, id\) >= ROW\((\$0|\(InitPlan 1\)\.col1), /);
      }
    } finally {
      await client.query("RESET enable_seqscan");
      client.release();
    }
  });
});

interface PlanNode {
  "Node Type": string;
  "Parent Relationship"?: string;
  "Index Name"?: string;
  "Index Cond"?: string;
  "Scan Direction"?: string;
  Plans?: PlanNode[];
}

function findNode(node: PlanNode, match: (n: PlanNode) => boolean): PlanNode | undefined {
  if (match(node)) return node;
  for (const child of node.Plans ?? []) {
    const found = findNode(child, match);
    if (found) return found;
  }
  return undefined;
}

function chunk<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out.length ? out : [[]];
}
