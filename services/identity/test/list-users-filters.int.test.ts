/**
 * The users table's filters (issue 21; Vestibule extensions of GET /users): verified e-mail, two-factor, sign-in
 * method, sign-up dates and restricted-only, combined with the order, pages and search, on real PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { ListUsersRequestSchema } from "@vestibule/proto/identity/v1/user_service";
import { rpcError, startIdentity, type IdentityHarness } from "./support.ts";

let h: IdentityHarness;
let projectId: string;
const ids: Record<string, string> = {};

beforeAll(async () => {
  h = await startIdentity();
  projectId = await h.newProject();
  const make = async (name: string, init: Record<string, unknown>) => {
    const { user } = await h.users.createUser({ projectId, displayName: name, ...init });
    ids[name] = user!.id;
  };
  // In sign-up order; the sign-up times are set below, one day apart from 2026-01-01.
  await make("verified-password", { primaryEmail: "vp@example.org", primaryEmailVerified: true, hasPassword: true });
  await make("unverified-otp", { primaryEmail: "uo@example.org", otpAuthEnabled: true });
  await make("mfa-passkey", { primaryEmail: "mp@example.org", primaryEmailVerified: true, passkeyAuthEnabled: true, requiresTotpMfa: true });
  await make("oauth-restricted", { oauthProviders: [{ id: "github", accountId: "42", email: "" }], restrictedByAdmin: true });
  await make("anonymous", { isAnonymous: true });
  for (const [i, name] of Object.keys(ids).entries()) {
    await h.pool.query(`UPDATE users SET signed_up_at = $2 WHERE id = $1`, [ids[name], new Date(Date.UTC(2026, 0, 1 + i)).toISOString()]);
  }
});
afterAll(async () => {
  await h?.stop();
});

type Req = Omit<MessageInitShape<typeof ListUsersRequestSchema>, "projectId" | "$typeName">;

async function names(req: Req): Promise<string[]> {
  const res = await h.users.listUsers({ projectId, includeRestricted: true, ...req });
  return res.users.map((u) => Object.keys(ids).find((n) => ids[n] === u.id)!);
}

describe("ListUsers filters", () => {
  it("filters by verified primary e-mail (users without one count as unverified)", async () => {
    expect(await names({ emailVerified: true })).toEqual(["verified-password", "mfa-passkey"]);
    expect(await names({ emailVerified: false })).toEqual(["unverified-otp", "oauth-restricted"]);
  });

  it("filters by two-factor and by sign-in method", async () => {
    expect(await names({ hasMfa: true })).toEqual(["mfa-passkey"]);
    expect(await names({ hasMfa: false, desc: true })).toEqual(["oauth-restricted", "unverified-otp", "verified-password"]);
    expect(await names({ authMethod: "password" })).toEqual(["verified-password"]);
    expect(await names({ authMethod: "otp" })).toEqual(["unverified-otp"]);
    expect(await names({ authMethod: "passkey" })).toEqual(["mfa-passkey"]);
    expect(await names({ authMethod: "oauth" })).toEqual(["oauth-restricted"]);
  });

  it("filters by sign-up dates (after inclusive, before exclusive), paged", async () => {
    const day = (d: number) => BigInt(Date.UTC(2026, 0, d));
    expect(await names({ signedUpAfterMillis: day(2), signedUpBeforeMillis: day(4) })).toEqual(["unverified-otp", "mfa-passkey"]);
    expect(await names({ signedUpAfterMillis: day(3), includeAnonymous: true })).toEqual(["mfa-passkey", "oauth-restricted", "anonymous"]);
    const first = await h.users.listUsers({ projectId, includeRestricted: true, signedUpBeforeMillis: day(4), limit: 2 });
    expect(first.users.map((u) => u.id)).toEqual([ids["verified-password"], ids["unverified-otp"]]);
    expect(first.nextCursor).toBe(ids["mfa-passkey"]);
    const second = await h.users.listUsers({ projectId, includeRestricted: true, signedUpBeforeMillis: day(4), limit: 2, cursor: first.nextCursor });
    expect(second.users.map((u) => u.id)).toEqual([ids["mfa-passkey"]]);
    expect(second.nextCursor).toBe("");
  });

  it("lists only restricted users: by an administrator, unverified where required, anonymous when asked for", async () => {
    expect(await names({ onlyRestricted: true, includeRestricted: false })).toEqual(["oauth-restricted"]);
    expect(await names({ onlyRestricted: true, requireEmailVerification: true })).toEqual(["unverified-otp", "oauth-restricted"]);
    expect(await names({ onlyRestricted: true, includeAnonymous: true })).toEqual(["oauth-restricted", "anonymous"]);
  });

  it("combines filters with the search", async () => {
    expect(await names({ query: "example.org", emailVerified: true, hasMfa: false })).toEqual(["verified-password"]);
  });

  it("rejects a bad sign-in method or time with 400", async () => {
    expect(await rpcError(h.users.listUsers({ projectId, authMethod: "magic" }))).toMatchObject({ httpStatus: 400 });
    expect(await rpcError(h.users.listUsers({ projectId, signedUpAfterMillis: -1n }))).toMatchObject({ httpStatus: 400 });
    expect(await rpcError(h.users.listUsers({ projectId, signedUpBeforeMillis: 10n ** 16n }))).toMatchObject({ httpStatus: 400 });
  });
});
