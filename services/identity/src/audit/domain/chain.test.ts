import { describe, expect, it } from "vitest";
import { canonicalJson, ChainChecker, entryHash, GENESIS_HASH, withoutSecrets, type ChainedContent, type StoredRow } from "./chain.ts";

function chain(n: number): StoredRow[] {
  const rows: StoredRow[] = [];
  let prev = GENESIS_HASH;
  for (let i = 1; i <= n; i++) {
    const content: ChainedContent = {
      project_id: "p",
      seq: String(i),
      id: `00000000-0000-4000-8000-00000000000${i}`,
      occurred_at: new Date(1_700_000_000_000 + i).toISOString(),
      actor: { type: "server_key", id: "k", project_id: "p", ip: "127.0.0.1", user_agent: "" },
      action: "user.update",
      resource_type: "user",
      resource_id: "u",
      before: null,
      after: { n: i },
      request_id: "r",
      request_line: "PATCH /api/v1/users/u",
      prev_hash: prev,
    };
    const hash = entryHash(content);
    rows.push({ ...content, hash });
    prev = hash;
  }
  return rows;
}

function check(rows: StoredRow[], head: { seq: string; hash: string } | undefined) {
  const c = new ChainChecker("p");
  for (const r of rows) {
    const b = c.next(r);
    if (b) return b;
  }
  return c.end(head);
}

describe("canonical JSON", () => {
  it("sorts keys at every level and drops undefined members", () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { z: 1, y: undefined, x: "s" }], c: null } })).toBe('{"a":{"c":null,"d":[1,{"x":"s","z":1}]},"b":1}');
    expect(entryHash({ ...chain(1)[0]!, after: { b: 2, a: 1 } })).toBe(entryHash({ ...chain(1)[0]!, after: { a: 1, b: 2 } }));
  });
});

describe("withoutSecrets", () => {
  it("redacts secret-named fields at any depth and keeps booleans", () => {
    expect(withoutSecrets({ id: "1", password: "x", has_password: true, nested: [{ secret_server_key: "ssk", access_token: "t", display_name: "n" }] })).toEqual({
      id: "1",
      password: "[redacted]",
      has_password: true,
      nested: [{ secret_server_key: "[redacted]", access_token: "[redacted]", display_name: "n" }],
    });
  });
});

describe("ChainChecker", () => {
  const rows = chain(5);
  const head = { seq: "5", hash: rows[4]!.hash };
  it("accepts an intact chain", () => expect(check(rows, head)).toBeUndefined());
  it("names an edited row", () => {
    expect(check(rows.map((r) => (r.seq === "3" ? { ...r, after: { n: 99 } } : r)), head)).toMatchObject({ seq: "3", kind: "edited" });
  });
  it("names the row after a deleted one, and a deleted tail", () => {
    expect(check(rows.filter((r) => r.seq !== "2"), head)).toMatchObject({ seq: "3", kind: "deleted" });
    expect(check(rows.slice(0, 4), head)).toMatchObject({ seq: "5", kind: "deleted" });
  });
  it("names a row moved to another seq", () => {
    const swapped = [rows[0]!, { ...rows[3]!, seq: "2" }, rows[2]!, { ...rows[1]!, seq: "4" }, rows[4]!];
    expect(check(swapped, head)).toMatchObject({ seq: "2", kind: "reordered" });
  });
});
