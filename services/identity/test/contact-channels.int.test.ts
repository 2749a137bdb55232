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

async function newUser(email?: string, auth = false): Promise<string> {
  return (await h.users.createUser({ projectId, primaryEmail: email, primaryEmailAuthEnabled: auth })).user!.id;
}

async function userEvents(userId: string) {
  return (await outboxEvents(h.pool, IdentityEvents.userUpdated)).filter((e) => e.payload.user?.id === userId);
}

describe("contact channels", () => {
  it("creates, gets and lists channels; values are normalised; events carry each change", async () => {
    const userId = await newUser();
    const { contactChannel } = await h.channels.createContactChannel({ projectId, userId, type: "email", value: " Work@Example.com ", usedForAuth: true });
    expect(contactChannel).toMatchObject({ userId, type: "email", value: "work@example.com", isVerified: false, isPrimary: false, usedForAuth: true });
    expect((await h.channels.getContactChannel({ projectId, userId, contactChannelId: contactChannel!.id })).contactChannel).toEqual(contactChannel);
    await h.channels.createContactChannel({ projectId, userId, type: "email", value: "home@example.com", isVerified: true });
    const { contactChannels } = await h.channels.listContactChannels({ projectId, userId });
    expect(contactChannels.map((c) => c.value)).toEqual(["work@example.com", "home@example.com"]);
    const everyone = (await h.channels.listContactChannels({ projectId })).contactChannels;
    expect(everyone.filter((c) => c.userId === userId)).toHaveLength(2);

    const events = (await outboxEvents(h.pool, IdentityEvents.contactChannelUpdated)).filter((e) => e.payload.contactChannel?.userId === userId);
    expect(events.map((e) => [e.payload.contactChannel?.value, e.payload.deleted])).toEqual([["work@example.com", false], ["home@example.com", false]]);
    expect(events[0]!.xmin).toBe(await rowXmin(h.pool, "contact_channels", contactChannel!.id));
    // A non-primary channel does not change the user as shown.
    expect(await userEvents(userId)).toHaveLength(0);
  });

  it("refuses a duplicate for the same user, unknown users and unsupported types", async () => {
    const userId = await newUser("dup@example.com");
    expect(await rpcError(h.channels.createContactChannel({ projectId, userId, type: "email", value: "DUP@example.com" }))).toMatchObject({
      name: "StatusError",
      httpStatus: 400,
      message: "Contact channel already exists",
    });
    expect(
      await rpcError(h.channels.createContactChannel({ projectId, userId: "0b3c2f4e-5d6a-4b7c-8d9e-0f1a2b3c4d5e", type: "email", value: "x@example.com" })),
    ).toMatchObject({ code: "USER_ID_DOES_NOT_EXIST" });
    expect(await rpcError(h.channels.createContactChannel({ projectId, userId, type: "phone", value: "+1555" }))).toMatchObject({ httpStatus: 400 });
  });

  it("refuses an address someone else signs in with (auth or not), also under concurrency", async () => {
    await newUser("signin@example.com", true);
    const userId = await newUser();
    for (const usedForAuth of [true, false]) {
      expect(await rpcError(h.channels.createContactChannel({ projectId, userId, type: "email", value: "signin@example.com", usedForAuth }))).toMatchObject({
        code: "CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE",
        httpStatus: 409,
        details: { type: "email", contact_channel_value: "signin@example.com", would_work_if_email_was_verified: false },
      });
    }
    // A non-auth address of someone else may be shared.
    await newUser("plain@example.com", false);
    await h.channels.createContactChannel({ projectId, userId, type: "email", value: "plain@example.com" });

    const racers = await Promise.all(Array.from({ length: 8 }, () => newUser()));
    const results = await Promise.allSettled(
      racers.map((id) => h.channels.createContactChannel({ projectId, userId: id, type: "email", value: "contended@example.com", usedForAuth: true })),
    );
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    for (const r of results) {
      if (r.status === "rejected") expect(await rpcError(Promise.reject(r.reason))).toMatchObject({ code: "CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE" });
    }
  });

  it("is_primary moves the primary flag, defines the user's primary e-mail and emits identity.user.updated.v1", async () => {
    const userId = await newUser("one@example.com", true);
    const two = (await h.channels.createContactChannel({ projectId, userId, type: "email", value: "two@example.com", isPrimary: true, isVerified: true })).contactChannel!;
    let channels = (await h.channels.listContactChannels({ projectId, userId })).contactChannels;
    expect(channels.map((c) => [c.value, c.isPrimary])).toEqual([["one@example.com", false], ["two@example.com", true]]);
    let user = (await h.users.getUser({ projectId, userId })).user!;
    expect(user).toMatchObject({ primaryEmail: "two@example.com", primaryEmailVerified: true, primaryEmailAuthEnabled: false, version: 2n });
    let events = await userEvents(userId);
    expect(events.map((e) => e.payload.user?.primaryEmail)).toEqual(["two@example.com"]);
    expect(events[0]!.xmin).toBe(await rowXmin(h.pool, "contact_channels", two.id));

    const one = channels[0]!;
    await h.channels.updateContactChannel({ projectId, userId, contactChannelId: one.id, isPrimary: true });
    channels = (await h.channels.listContactChannels({ projectId, userId })).contactChannels;
    expect(channels.map((c) => [c.value, c.isPrimary])).toEqual([["one@example.com", true], ["two@example.com", false]]);
    user = (await h.users.getUser({ projectId, userId })).user!;
    expect(user).toMatchObject({ primaryEmail: "one@example.com", primaryEmailAuthEnabled: true, version: 3n });

    // Deleting the primary channel leaves the user without a primary e-mail.
    await h.channels.deleteContactChannel({ projectId, userId, contactChannelId: one.id });
    user = (await h.users.getUser({ projectId, userId })).user!;
    expect(user.primaryEmail).toBeUndefined();
    events = await userEvents(userId);
    expect(events.map((e) => e.payload.user?.primaryEmail ?? null)).toEqual(["two@example.com", "one@example.com", null]);
    const deleted = (await outboxEvents(h.pool, IdentityEvents.contactChannelUpdated)).filter((e) => e.payload.deleted && e.payload.contactChannel?.id === one.id);
    expect(deleted).toHaveLength(1);
  });

  it("changing the value unverifies the channel unless is_verified is given; auth conflicts are checked", async () => {
    await newUser("someone@example.com", true);
    const userId = await newUser();
    const c = (await h.channels.createContactChannel({ projectId, userId, type: "email", value: "old@example.com", isVerified: true })).contactChannel!;
    let updated = (await h.channels.updateContactChannel({ projectId, userId, contactChannelId: c.id, value: "New@Example.com" })).contactChannel!;
    expect(updated).toMatchObject({ value: "new@example.com", isVerified: false });
    updated = (await h.channels.updateContactChannel({ projectId, userId, contactChannelId: c.id, value: "newer@example.com", isVerified: true })).contactChannel!;
    expect(updated).toMatchObject({ value: "newer@example.com", isVerified: true });
    updated = (await h.channels.updateContactChannel({ projectId, userId, contactChannelId: c.id, usedForAuth: true })).contactChannel!;
    expect(updated).toMatchObject({ usedForAuth: true, isVerified: true });
    expect(await rpcError(h.channels.updateContactChannel({ projectId, userId, contactChannelId: c.id, value: "someone@example.com" }))).toMatchObject({
      code: "CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE",
    });
    await h.channels.createContactChannel({ projectId, userId, type: "email", value: "second@example.com" });
    expect(await rpcError(h.channels.updateContactChannel({ projectId, userId, contactChannelId: c.id, value: "second@example.com" }))).toMatchObject({
      httpStatus: 400,
      message: "Contact channel already exists",
    });
  });

  it("MarkContactChannelVerified verifies once, then EMAIL_ALREADY_VERIFIED", async () => {
    const userId = await newUser("verify-me@example.com", true);
    const [primary] = (await h.channels.listContactChannels({ projectId, userId })).contactChannels;
    const { contactChannel } = await h.channels.markContactChannelVerified({ projectId, userId, contactChannelId: primary!.id });
    expect(contactChannel?.isVerified).toBe(true);
    expect((await h.users.getUser({ projectId, userId })).user?.primaryEmailVerified).toBe(true);
    expect((await userEvents(userId)).at(-1)?.payload.user?.primaryEmailVerified).toBe(true);
    expect(await rpcError(h.channels.markContactChannelVerified({ projectId, userId, contactChannelId: primary!.id }))).toMatchObject({
      code: "EMAIL_ALREADY_VERIFIED",
      httpStatus: 409,
    });
  });

  it("404 text to read, 400 text to change or delete channels that do not exist or belong to another user or project (issue 13)", async () => {
    const userId = await newUser("mine@example.com");
    const otherUser = await newUser();
    const [c] = (await h.channels.listContactChannels({ projectId, userId })).contactChannels;
    const otherProject = await h.newProject();
    for (const req of [
      { projectId, userId: otherUser, contactChannelId: c!.id },
      { projectId: otherProject, userId, contactChannelId: c!.id },
      { projectId, userId, contactChannelId: "0b3c2f4e-5d6a-4b7c-8d9e-0f1a2b3c4d5e" },
      { projectId, userId, contactChannelId: "nope" },
    ]) {
      expect(await rpcError(h.channels.getContactChannel(req))).toMatchObject({ name: "StatusError", httpStatus: 404, message: "Contact channel not found." });
      for (const call of [() => h.channels.updateContactChannel({ ...req, isVerified: true }), () => h.channels.deleteContactChannel(req)]) {
        expect(await rpcError(call())).toMatchObject({ name: "StatusError", httpStatus: 400, message: "Contact channel not found" });
      }
    }
  });
});
