import { describe, expect, it } from "vitest";
import { branchConfigSourceProblems, mergeLevels, renderLevels, resetOverrideKeys } from "./index.ts";

describe("config levels", () => {
  it("render project < branch < environment; a later level's null deletes a lower level's value", () => {
    const r = renderLevels({
      project: { "auth.passkey.allowSignIn": true, "payments.items.a": { displayName: "A" }, users: { allowClientUserDeletion: true } },
      branch: { auth: { passkey: { allowSignIn: false } }, "payments.items.b": { displayName: "B" } },
      environment: { "auth.passkey.allowSignIn": true, "payments.items.a": null },
    });
    expect(r.auth.passkey.allowSignIn).toBe(true);
    expect(r.users.allowClientUserDeletion).toBe(true);
    expect(Object.keys(r.payments.items)).toEqual(["b"]);
    expect(renderLevels({ project: { "auth.allowSignUp": false }, branch: {}, environment: {} }).auth.allowSignUp).toBe(false);
    expect(renderLevels({ project: { "auth.allowSignUp": false }, branch: { "auth.allowSignUp": null }, environment: {} }).auth.allowSignUp).toBe(true);
    expect(mergeLevels({ project: { a: { b: 1 } }, branch: { "a.c": 2 }, environment: {} })).toEqual({ a: { b: 1, c: 2 } });
  });

  it("resetOverrideKeys removes each key with everything below it, however it was written", () => {
    const doc = { auth: { passkey: { allowSignIn: true }, allowSignUp: false }, "payments.items.x": { displayName: "X" }, "payments.items.y": { displayName: "Y" } };
    expect(resetOverrideKeys(doc, ["auth.passkey", "payments.items.x"])).toEqual({ auth: { allowSignUp: false }, payments: { items: { y: { displayName: "Y" } } } });
    expect(resetOverrideKeys(doc, ["auth", "payments"])).toEqual({});
    expect(resetOverrideKeys(doc, ["auth.pass"])).toEqual(resetOverrideKeys(doc, [])); // a prefix of a name is not a parent
    expect(resetOverrideKeys(doc, [])).toEqual({ auth: { passkey: { allowSignIn: true }, allowSignUp: false }, payments: { items: { x: { displayName: "X" }, y: { displayName: "Y" } } } });
  });

  it("branchConfigSourceProblems accepts the three source kinds only", () => {
    expect(branchConfigSourceProblems({ type: "unlinked" })).toEqual([]);
    expect(branchConfigSourceProblems({ type: "pushed-from-unknown" })).toEqual([]);
    expect(branchConfigSourceProblems({ type: "pushed-from-github", owner: "o", repo: "r", branch: "b", commit_hash: "c", config_file_path: "f" })).toEqual([]);
    expect(branchConfigSourceProblems({ type: "pushed-from-github", owner: "o" })).not.toEqual([]);
    expect(branchConfigSourceProblems({ type: "other" })).not.toEqual([]);
    expect(branchConfigSourceProblems("x")).not.toEqual([]);
    expect(branchConfigSourceProblems({ type: "unlinked", extra: 1 })).not.toEqual([]);
  });
});
