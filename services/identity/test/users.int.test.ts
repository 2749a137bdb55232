import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { IdentityEvents } from "../src/events.ts";
import { outboxEvents, rowXmin, rpcError, startIdentity, type IdentityHarness } from "./support.ts";

let h: IdentityHarness;
let projectId: string;

beforeAll(async () => {
  h = await startIdentity();
  projectId = await h.newProject();
});
afterAll(async () => {
  await h?.stop();
});

describe("CreateUser", () => {
  it("normalises input, creates the primary channel and writes user.created + contact_channel.updated in the same transaction", async () => {
    const { user } = await h.users.createUser({
      projectId,
      displayName: "",
      primaryEmail: "  Alice.Smith@Example.COM ",
      primaryEmailVerified: true,
      primaryEmailAuthEnabled: true,
      clientMetadataJson: '{"theme":"dark"}',
      serverMetadataJson: "null",
      hasPassword: true,
      signUpMethod: "password",
      oauthProviders: [{ id: "github", accountId: "42", email: "A@Example.com" }],
    });
    expect(user).toMatchObject({
      projectId,
      primaryEmail: "alice.smith@example.com",
      primaryEmailVerified: true,
      primaryEmailAuthEnabled: true,
      clientMetadataJson: '{"theme": "dark"}',
      clientReadOnlyMetadataJson: "null",
      serverMetadataJson: "null",
      hasPassword: true,
      isAnonymous: false,
      version: 1n,
      oauthProviders: [{ id: "github", accountId: "42", email: "a@example.com" }],
    });
    expect(user!.displayName).toBeUndefined();
    expect(user!.lastActiveAtMillis).toBe(user!.signedUpAtMillis);
    expect(Math.abs(Number(user!.signedUpAtMillis) - Date.now())).toBeLessThan(60_000);

    const { contactChannels } = await h.channels.listContactChannels({ projectId, userId: user!.id });
    expect(contactChannels).toMatchObject([{ userId: user!.id, type: "email", value: "alice.smith@example.com", isPrimary: true, isVerified: true, usedForAuth: true }]);

    const created = (await outboxEvents(h.pool, IdentityEvents.userCreated)).filter((e) => e.payload.user?.id === user!.id);
    expect(created).toHaveLength(1);
    expect(created[0]!.projectId).toBe(projectId);
    expect(created[0]!.payload.signUpMethod).toBe("password");
    expect(created[0]!.payload.user?.primaryEmail).toBe("alice.smith@example.com");
    const channelEvents = (await outboxEvents(h.pool, IdentityEvents.contactChannelUpdated)).filter((e) => e.payload.contactChannel?.userId === user!.id);
    expect(channelEvents).toHaveLength(1);
    // Same transaction: the user row, its channel row and both outbox rows were written by one transaction id.
    const xmin = await rowXmin(h.pool, "users", user!.id);
    expect(created[0]!.xmin).toBe(xmin);
    expect(channelEvents[0]!.xmin).toBe(xmin);
    expect(await rowXmin(h.pool, "contact_channels", contactChannels[0]!.id)).toBe(xmin);
  });

  it("accepts an explicit id, defaults the sign-up method and rejects a taken id", async () => {
    const id = "7c9e6679-7425-40de-944b-e07fc1f90ae7";
    const { user } = await h.users.createUser({ projectId, userId: id, isAnonymous: true });
    expect(user).toMatchObject({ id, isAnonymous: true });
    const created = (await outboxEvents(h.pool, IdentityEvents.userCreated)).find((e) => e.payload.user?.id === id);
    expect(created?.payload.signUpMethod).toBe("anonymous");
    expect(await rpcError(h.users.createUser({ projectId, userId: id }))).toMatchObject({ httpStatus: 409 });
    expect(await rpcError(h.users.createUser({ projectId, userId: "not-a-uuid" }))).toMatchObject({ httpStatus: 400, message: "user_id must be a UUID." });
  });

  it("refuses auth or verified flags without an e-mail, and invalid metadata, as 400 texts", async () => {
    expect(await rpcError(h.users.createUser({ projectId, primaryEmailAuthEnabled: true }))).toMatchObject({
      name: "StatusError",
      httpStatus: 400,
      message: "primary_email_auth_enabled cannot be true without primary_email",
    });
    expect(await rpcError(h.users.createUser({ projectId, primaryEmailVerified: true }))).toMatchObject({
      httpStatus: 400,
      message: "primary_email_verified cannot be true without primary_email",
    });
    expect(await rpcError(h.users.createUser({ projectId, clientMetadataJson: "{nope" }))).toMatchObject({ httpStatus: 400, message: "client_metadata is not valid JSON" });
  });

  it("answers PROJECT_NOT_FOUND for an unknown project", async () => {
    expect(await rpcError(h.users.createUser({ projectId: "5f0c7a0e-1e4f-4a77-8f59-2b1b0c3f9d11" }))).toMatchObject({ code: "PROJECT_NOT_FOUND" });
  });
});

describe("auth e-mail uniqueness", () => {
  it("USER_EMAIL_ALREADY_EXISTS when another user signs in with the address; details tell whether it is unverified", async () => {
    await h.users.createUser({ projectId, primaryEmail: "taken@example.com", primaryEmailAuthEnabled: true });
    const before = (await outboxEvents(h.pool, IdentityEvents.userCreated)).length;
    const err = await rpcError(h.users.createUser({ projectId, primaryEmail: "TAKEN@example.com ", primaryEmailAuthEnabled: true }));
    expect(err).toMatchObject({ code: "USER_EMAIL_ALREADY_EXISTS", httpStatus: 409, details: { email: "taken@example.com", would_work_if_email_was_verified: true } });
    // Nothing of the failed transaction remains.
    expect((await outboxEvents(h.pool, IdentityEvents.userCreated)).length).toBe(before);

    await h.users.createUser({ projectId, primaryEmail: "verified@example.com", primaryEmailAuthEnabled: true, primaryEmailVerified: true });
    expect(await rpcError(h.users.createUser({ projectId, primaryEmail: "verified@example.com", primaryEmailAuthEnabled: true }))).toMatchObject({
      details: { email: "verified@example.com", would_work_if_email_was_verified: false },
    });
  });

  it("allows the same address without auth (e.g. OAuth allow_duplicates), and other projects", async () => {
    await h.users.createUser({ projectId, primaryEmail: "shared@example.com", primaryEmailAuthEnabled: true });
    const { user } = await h.users.createUser({ projectId, primaryEmail: "shared@example.com", primaryEmailAuthEnabled: false });
    expect(user).toMatchObject({ primaryEmail: "shared@example.com", primaryEmailAuthEnabled: false });
    const other = await h.newProject();
    const { user: elsewhere } = await h.users.createUser({ projectId: other, primaryEmail: "shared@example.com", primaryEmailAuthEnabled: true });
    expect(elsewhere?.primaryEmailAuthEnabled).toBe(true);
  });

  it("lets exactly one of many concurrent sign-ups with one address win (database-enforced)", async () => {
    const attempts = await Promise.allSettled(
      Array.from({ length: 12 }, () => h.users.createUser({ projectId, primaryEmail: "race@example.com", primaryEmailAuthEnabled: true })),
    );
    const won = attempts.filter((a) => a.status === "fulfilled");
    expect(won).toHaveLength(1);
    for (const a of attempts) {
      if (a.status === "rejected") expect(await rpcError(Promise.reject(a.reason))).toMatchObject({ code: "USER_EMAIL_ALREADY_EXISTS", details: { email: "race@example.com" } });
    }
    const { rows } = await h.pool.query(`SELECT count(*)::int AS n FROM contact_channels WHERE project_id = $1 AND value = 'race@example.com'`, [projectId]);
    expect(rows[0].n).toBe(1);
    // The rule lives in the database, not only in code: a second auth channel with the value cannot be inserted.
    const other = (await h.users.createUser({ projectId })).user!;
    await expect(
      h.pool.query(
        `INSERT INTO contact_channels (id, project_id, user_id, type, value, used_for_auth) VALUES (gen_random_uuid(), $1, $2, 'email', 'race@example.com', true)`,
        [projectId, other.id],
      ),
    ).rejects.toMatchObject({ code: "23505", constraint: "contact_channels_auth_value" });
  });

  it("lets one of two concurrent updates to the same sign-in address win", async () => {
    const a = (await h.users.createUser({ projectId, primaryEmail: "a-first@example.com", primaryEmailAuthEnabled: true })).user!;
    const b = (await h.users.createUser({ projectId, primaryEmail: "b-first@example.com", primaryEmailAuthEnabled: true })).user!;
    const results = await Promise.allSettled(
      [a, b].map((u) => h.users.updateUser({ projectId, userId: u.id, primaryEmail: { value: "contested@example.com" } })),
    );
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    const failed = results.find((r) => r.status === "rejected") as PromiseRejectedResult;
    expect(await rpcError(Promise.reject(failed.reason))).toMatchObject({ code: "USER_EMAIL_ALREADY_EXISTS" });
  });

  it("FindUserByAuthEmail finds only the user who signs in with the address", async () => {
    const { user } = await h.users.createUser({ projectId, primaryEmail: "finder@example.com", primaryEmailAuthEnabled: true, primaryEmailVerified: true });
    await h.users.createUser({ projectId, primaryEmail: "nonauth@example.com" });
    expect(await h.users.findUserByAuthEmail({ projectId, email: " Finder@Example.com" })).toMatchObject({ user: { id: user!.id }, emailVerified: true });
    expect((await h.users.findUserByAuthEmail({ projectId, email: "nonauth@example.com" })).user).toBeUndefined();
  });
});

describe("GetUser", () => {
  it("USER_NOT_FOUND for path ids, USER_ID_DOES_NOT_EXIST for body ids", async () => {
    const missing = "0b3c2f4e-5d6a-4b7c-8d9e-0f1a2b3c4d5e";
    expect(await rpcError(h.users.getUser({ projectId, userId: missing }))).toMatchObject({ code: "USER_NOT_FOUND", httpStatus: 404 });
    expect(await rpcError(h.users.getUser({ projectId, userId: "me-not-a-uuid" }))).toMatchObject({ code: "USER_NOT_FOUND" });
    expect(await rpcError(h.users.getUser({ projectId, userId: missing, idFromBody: true }))).toMatchObject({
      code: "USER_ID_DOES_NOT_EXIST",
      httpStatus: 400,
      details: { user_id: missing },
    });
  });

  it("never shows another project's user", async () => {
    const { user } = await h.users.createUser({ projectId, displayName: "Mine" });
    const other = await h.newProject();
    expect(await rpcError(h.users.getUser({ projectId: other, userId: user!.id }))).toMatchObject({ code: "USER_NOT_FOUND" });
  });
});

describe("UpdateUser", () => {
  it("updates fields, bumps the version and writes the full user to identity.user.updated.v1 in the same transaction", async () => {
    const { user } = await h.users.createUser({ projectId, displayName: "Bob", clientMetadataJson: '{"a":1}' });
    const { user: updated } = await h.users.updateUser({
      projectId,
      userId: user!.id,
      displayName: { value: "" },
      clientMetadataJson: "null",
      serverMetadataJson: '{"plan":"pro"}',
      profileImageUrl: { value: "https://example.com/b.png" },
      selectedTeamId: { value: "3f2504e0-4f89-41d3-9a0c-0305e82c3301" },
      otpAuthEnabled: true,
    });
    expect(updated).toMatchObject({
      clientMetadataJson: "null",
      serverMetadataJson: '{"plan": "pro"}',
      profileImageUrl: "https://example.com/b.png",
      selectedTeamId: "3f2504e0-4f89-41d3-9a0c-0305e82c3301",
      otpAuthEnabled: true,
      version: 2n,
    });
    expect(updated!.displayName).toBeUndefined();
    const { user: cleared } = await h.users.updateUser({ projectId, userId: user!.id, profileImageUrl: {}, selectedTeamId: {} });
    expect(cleared!.profileImageUrl).toBeUndefined();
    expect(cleared!.selectedTeamId).toBeUndefined();
    expect(cleared!.version).toBe(3n);

    const events = (await outboxEvents(h.pool, IdentityEvents.userUpdated)).filter((e) => e.payload.user?.id === user!.id);
    expect(events.map((e) => e.payload.user?.version)).toEqual([2n, 3n]);
    expect(events[1]!.xmin).toBe(await rowXmin(h.pool, "users", user!.id));
    expect(events[0]!.payload.user).toMatchObject({ serverMetadataJson: '{"plan": "pro"}', otpAuthEnabled: true });
  });

  it("only_if_no_selected_team selects a team only for a user with none, and otherwise changes nothing (no event)", async () => {
    const [first, second] = ["3f2504e0-4f89-41d3-9a0c-0305e82c3302", "3f2504e0-4f89-41d3-9a0c-0305e82c3303"];
    const id = (await h.users.createUser({ projectId, displayName: "Ann" })).user!.id;
    const selected = (await h.users.updateUser({ projectId, userId: id, selectedTeamId: { value: first }, onlyIfNoSelectedTeam: true })).user!;
    expect(selected).toMatchObject({ selectedTeamId: first, version: 2n });
    const kept = (await h.users.updateUser({ projectId, userId: id, selectedTeamId: { value: second }, onlyIfNoSelectedTeam: true })).user!;
    expect(kept).toMatchObject({ selectedTeamId: first, version: 2n });
    const events = (await outboxEvents(h.pool, IdentityEvents.userUpdated)).filter((e) => e.payload.user?.id === id);
    expect(events.map((e) => e.payload.user?.selectedTeamId)).toEqual([first]);
  });

  it("manages the primary e-mail channel: create, change (unverifies), flags, and delete on null", async () => {
    const id = (await h.users.createUser({ projectId })).user!.id;
    let u = (await h.users.updateUser({ projectId, userId: id, primaryEmail: { value: "First@Example.com" }, primaryEmailVerified: true })).user!;
    expect(u).toMatchObject({ primaryEmail: "first@example.com", primaryEmailVerified: true, primaryEmailAuthEnabled: false });

    u = (await h.users.updateUser({ projectId, userId: id, primaryEmailAuthEnabled: true })).user!;
    expect(u).toMatchObject({ primaryEmail: "first@example.com", primaryEmailVerified: true, primaryEmailAuthEnabled: true });

    // A new address is unverified unless the request says otherwise; auth stays enabled.
    u = (await h.users.updateUser({ projectId, userId: id, primaryEmail: { value: "second@example.com" } })).user!;
    expect(u).toMatchObject({ primaryEmail: "second@example.com", primaryEmailVerified: false, primaryEmailAuthEnabled: true });
    let channels = (await h.channels.listContactChannels({ projectId, userId: id })).contactChannels;
    expect(channels.map((c) => c.value)).toEqual(["second@example.com"]);

    // An address the user already has as a secondary channel becomes primary; the old primary stays as secondary.
    await h.channels.createContactChannel({ projectId, userId: id, type: "email", value: "third@example.com", isVerified: true });
    u = (await h.users.updateUser({ projectId, userId: id, primaryEmail: { value: "third@example.com" } })).user!;
    expect(u).toMatchObject({ primaryEmail: "third@example.com", primaryEmailVerified: true });
    channels = (await h.channels.listContactChannels({ projectId, userId: id })).contactChannels;
    expect(channels.map((c) => [c.value, c.isPrimary])).toEqual([["second@example.com", false], ["third@example.com", true]]);

    u = (await h.users.updateUser({ projectId, userId: id, primaryEmail: {} })).user!;
    expect(u.primaryEmail).toBeUndefined();
    expect(u).toMatchObject({ primaryEmailVerified: false, primaryEmailAuthEnabled: false });
    channels = (await h.channels.listContactChannels({ projectId, userId: id })).contactChannels;
    expect(channels.map((c) => c.value)).toEqual(["second@example.com"]);
    const deletedEvents = (await outboxEvents(h.pool, IdentityEvents.contactChannelUpdated)).filter((e) => e.payload.deleted && e.payload.contactChannel?.userId === id);
    expect(deletedEvents.map((e) => e.payload.contactChannel?.value)).toEqual(["third@example.com"]);

    expect(await rpcError(h.users.updateUser({ projectId, userId: id, primaryEmailAuthEnabled: true }))).toMatchObject({
      httpStatus: 400,
      message: "primary_email_auth_enabled cannot be true without primary_email",
    });
  });

  it("refuses a primary e-mail another user signs in with", async () => {
    await h.users.createUser({ projectId, primaryEmail: "owner@example.com", primaryEmailAuthEnabled: true, primaryEmailVerified: true });
    const id = (await h.users.createUser({ projectId, primaryEmail: "mine@example.com", primaryEmailAuthEnabled: true })).user!.id;
    expect(await rpcError(h.users.updateUser({ projectId, userId: id, primaryEmail: { value: "owner@example.com" } }))).toMatchObject({
      code: "USER_EMAIL_ALREADY_EXISTS",
      details: { email: "owner@example.com", would_work_if_email_was_verified: false },
    });
    // Without auth the address may be shared.
    const u = (await h.users.updateUser({ projectId, userId: id, primaryEmail: { value: "owner@example.com" }, primaryEmailAuthEnabled: false })).user!;
    expect(u).toMatchObject({ primaryEmail: "owner@example.com", primaryEmailAuthEnabled: false });
  });

  it("is_anonymous only goes from true to false", async () => {
    const anon = (await h.users.createUser({ projectId, isAnonymous: true })).user!;
    expect((await h.users.updateUser({ projectId, userId: anon.id, isAnonymous: true })).user?.isAnonymous).toBe(true);
    expect((await h.users.updateUser({ projectId, userId: anon.id, isAnonymous: false })).user?.isAnonymous).toBe(false);
    expect(await rpcError(h.users.updateUser({ projectId, userId: anon.id, isAnonymous: true }))).toMatchObject({
      httpStatus: 400,
      message: "is_anonymous can only be set to false.",
    });
  });

  it("USER_NOT_FOUND for unknown users", async () => {
    expect(await rpcError(h.users.updateUser({ projectId, userId: "0b3c2f4e-5d6a-4b7c-8d9e-0f1a2b3c4d5e", displayName: { value: "x" } }))).toMatchObject({ code: "USER_NOT_FOUND" });
  });
});

describe("DeleteUser", () => {
  it("deletes the user with channels and activity, writes identity.user.deleted.v1, then USER_NOT_FOUND", async () => {
    const { user } = await h.users.createUser({ projectId, primaryEmail: "gone@example.com", primaryEmailAuthEnabled: true });
    await h.channels.createContactChannel({ projectId, userId: user!.id, type: "email", value: "gone2@example.com" });
    await h.users.recordActivity({ activities: [{ projectId, userId: user!.id, atMillis: BigInt(Date.now()) }] });
    await h.users.deleteUser({ projectId, userId: user!.id });

    for (const table of ["users", "contact_channels", "user_activity"]) {
      const column = table === "users" ? "id" : "user_id";
      const { rows } = await h.pool.query(`SELECT count(*)::int AS n FROM ${table} WHERE ${column} = $1`, [user!.id]);
      expect(rows[0].n, table).toBe(0);
    }
    const deleted = (await outboxEvents(h.pool, IdentityEvents.userDeleted)).filter((e) => e.payload.userId === user!.id);
    expect(deleted).toHaveLength(1);
    expect(deleted[0]!.payload.projectId).toBe(projectId);
    expect(await rpcError(h.users.getUser({ projectId, userId: user!.id }))).toMatchObject({ code: "USER_NOT_FOUND" });
    expect(await rpcError(h.users.deleteUser({ projectId, userId: user!.id }))).toMatchObject({ code: "USER_NOT_FOUND" });
    // The sign-in address is free again.
    await h.users.createUser({ projectId, primaryEmail: "gone@example.com", primaryEmailAuthEnabled: true });
  });
});
