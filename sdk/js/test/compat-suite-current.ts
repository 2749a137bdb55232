/**
 * Issue 13's part of the compat app body (compat-suite.ts runs it): anonymous and restricted users, teams with paging,
 * invitations by user, config update by level, the analytics batch in both encodings and e-mail scheduling. Each test
 * goes through the SDK's public API where its generation has the method; where it does not, the test does what that
 * generation does instead, or checks that the SDK lacks it, with the reason in its title (see SdkFeatures and the
 * table in compat.int.test.ts) — never a skip.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { expect, it } from "vitest";
import { standardConfig, startTestSmtp } from "../../../services/email/test/smtp-fixtures.ts";
import { call, headersFor, type Stack } from "../../../gateway/test/support.ts";
import { adminAppFor, callbackUrl, clientAppFor, randomEmail, serverAppFor, type SdkFeatures, type SdkModule } from "./compat-suite.ts";

/** The published SDK's internals (`stackAppInternalsSymbol`): how its browser event tracker sends analytics batches. */
const internals = Symbol.for("StackAuth--DO-NOT-USE-OR-YOU-WILL-BE-FIRED--StackAppInternals");

const missing = (what: string, instead: string) => `${what} (not in this SDK generation; it ${instead})`;

/**
 * A test of a feature where this SDK generation has it; where it does not, a test that the SDK really lacks it (so the
 * capability table cannot drift, and CI, which counts a skipped test as a failure, sees a real test either way).
 */
const where = (has: boolean | undefined, lacks: () => Promise<void>) => (title: string, test: () => Promise<void>) => it(title, has ? test : lacks);

export function currentSdkSuite(sdk: SdkModule, getStack: () => Stack, features: SdkFeatures): void {
  const clientApp = () => clientAppFor(sdk, getStack());
  const serverApp = () => serverAppFor(sdk, getStack());
  const adminHeaders = () => headersFor(getStack().demo, "admin");
  const environmentLevel = async () => {
    const res = await call(getStack(), "GET", "/api/v1/internal/config/override/environment", { headers: adminHeaders() });
    expect(res.status).toBe(200);
    return JSON.parse(res.json.config_string) as Record<string, any>;
  };
  /** Project config through the SDK's own admin app (2.8.102+: the environment level; 2.8.41: the unlevelled PATCH). */
  const updateConfig = async (override: Record<string, unknown>) => {
    const project = await adminAppFor(sdk, getStack()).getProject();
    await project.updateConfig(override);
  };

  it("updates project config through the admin app; it lands on the environment level (2.8.41: unlevelled PATCH = environment)", async () => {
    const name = `Compat ${randomBytes(3).toString("hex")}`;
    await updateConfig({ "dataVault.stores.compat-level": { displayName: name } });
    expect((await environmentLevel()).dataVault?.stores?.["compat-level"]).toEqual({ displayName: name });
    const project = await call(getStack(), "GET", "/api/v1/internal/config/override/project", { headers: adminHeaders() });
    expect(JSON.stringify(project.json)).not.toContain(name);
  });

  where(features.configLevels, async () => {
    const project = await adminAppFor(sdk, getStack()).getProject();
    expect((project as unknown as Record<string, unknown>).pushConfig).toBeUndefined();
  })(
    features.configLevels
      ? "pushes branch config with its source, reads each level, renders environment over branch and resets keys per level"
      : missing("config levels", "has only the unlevelled updateConfig, which the test above checks"),
    async () => {
      const project = await adminAppFor(sdk, getStack()).getProject();
      const key = `dataVault.stores.compat-branch-${randomBytes(3).toString("hex")}`;
      await project.pushConfig({ [key]: { displayName: "Pushed" } }, { source: { type: "pushed-from-unknown" } });
      try {
        expect(await project.getPushedConfigSource()).toEqual({ type: "pushed-from-unknown" });
        expect(await project.getConfigOverride("branch")).toEqual({ [key]: { displayName: "Pushed" } });
        await project.updatePushedConfig({ [`${key}.displayName`]: "Pushed again" });
        const storeId = key.split(".")[2]!;
        const rendered = async () => (await (await adminAppFor(sdk, getStack()).getProject()).getConfig()).dataVault.stores[storeId];
        expect(await rendered()).toEqual({ displayName: "Pushed again" });
        await project.updateConfig({ [key]: { displayName: "Environment wins" } });
        expect(await rendered()).toEqual({ displayName: "Environment wins" });
        await project.resetConfigOverrideKeys("environment", [key]);
        expect(await rendered()).toEqual({ displayName: "Pushed again" });
        expect(JSON.stringify(await project.getConfigOverride("environment"))).not.toContain(storeId);
      } finally {
        await project.replaceConfigOverride("branch", {});
        await project.unlinkPushedConfigSource();
      }
      expect(await project.getConfigOverride("branch")).toEqual({});
      expect(await project.getPushedConfigSource()).toEqual({ type: "unlinked" });
    },
  );

  it("gives anonymous users an id the server sees as anonymous (2.8.102+: restricted with the reason 'anonymous')", async () => {
    const app = clientApp();
    const anon = await app.getUser({ or: "anonymous" });
    expect(anon.isAnonymous).toBe(true);
    if (features.restrictedUsers) {
      expect(anon.isRestricted).toBe(true);
      expect(anon.restrictedReason).toEqual({ type: "anonymous" });
    }
    const seen = await serverApp().getUser(anon.id);
    expect(seen?.isAnonymous).toBe(true);
  });

  it(
    features.restrictedUsers
      ? "hides an unverified user from getUser in a project that requires verification unless includeRestricted"
      : missing("restricted users", "reads an unverified user of a project that requires verification as signed in, which this test checks"),
    async () => {
      await updateConfig({ "onboarding.requireEmailVerification": true });
      try {
        const email = randomEmail("restricted");
        const app = clientApp();
        expect((await app.signUpWithCredential({ email, password: "restricted compat 1", verificationCallbackUrl: callbackUrl, noRedirect: true })).status).toBe("ok");
        const server = serverApp();
        if (features.restrictedUsers) {
          expect(await app.getUser()).toBeNull();
          const included = await app.getUser({ includeRestricted: true, or: "throw" });
          expect(included.primaryEmail).toBe(email);
          expect(included.isRestricted).toBe(true);
          expect(included.restrictedReason).toEqual({ type: "email_not_verified" });
          const ids = async (options: Record<string, unknown>) => (await server.listUsers({ limit: 1000, ...options })).map((u: { id: string }) => u.id);
          expect(await ids({})).not.toContain(included.id);
          expect(await ids({ includeRestricted: true })).toContain(included.id);
          await (await server.getUser(included.id)).update({ primaryEmailVerified: true });
          const fresh = clientApp(); // a fresh sign-in: new token claims
          expect((await fresh.signInWithCredential({ email, password: "restricted compat 1", noRedirect: true })).status).toBe("ok");
          const verified = await fresh.getUser({ or: "throw" });
          expect([verified.id, verified.isRestricted]).toEqual([included.id, false]);
        } else {
          // The seed-era SDK knows no restriction: its app reads the unverified user as signed in, as before.
          const user = await app.getUser({ or: "throw" });
          expect([user.primaryEmail, user.primaryEmailVerified]).toEqual([email, false]);
          expect((await server.getUser(user.id))?.primaryEmail).toBe(email);
        }
      } finally {
        await updateConfig({ "onboarding.requireEmailVerification": false });
      }
    },
  );

  it(
    features.teamsPaging ? "pages the project's teams from the server app with limit and cursor" : missing("teams paging", "lists every team at once, which this test checks"),
    async () => {
      const server = serverApp();
      const tag = `paged-${randomBytes(3).toString("hex")}`;
      const made: string[] = [];
      for (let i = 0; i < 3; i++) made.push((await server.createTeam({ displayName: `${tag} ${i}` })).id);
      if (features.teamsPaging) {
        const first = await server.listTeams({ query: tag, limit: 2 });
        expect(first.map((t: { id: string }) => t.id)).toEqual(made.slice(0, 2));
        expect(first.nextCursor).toEqual(expect.any(String));
        const rest = await server.listTeams({ query: tag, limit: 2, cursor: first.nextCursor });
        expect(rest.map((t: { id: string }) => t.id)).toEqual(made.slice(2));
        expect(rest.nextCursor).toBeNull();
        const newest = await server.listTeams({ query: tag, limit: 2, orderBy: "createdAt", desc: true });
        expect(newest.map((t: { id: string }) => t.id)).toEqual([made[2], made[1]]);
        const older = await server.listTeams({ query: tag, limit: 2, orderBy: "createdAt", desc: true, cursor: newest.nextCursor });
        expect(older.map((t: { id: string }) => t.id)).toEqual([made[0]]);
      } else {
        const all = (await server.listTeams()).map((t: { id: string }) => t.id);
        expect(all).toEqual(expect.arrayContaining(made));
      }
    },
  );

  where(features.invitationsByUser, async () => {
    const user = await clientApp().getUser({ or: "anonymous" });
    expect((user as unknown as Record<string, unknown>).listTeamInvitations).toBeUndefined();
  })(
    features.invitationsByUser
      ? "lists the invitations a user received (with the team's name) and accepts one by id"
      : missing("invitations by user", "accepts by the e-mailed code, as the team test above does"),
    async () => {
      const owner = clientApp();
      expect((await owner.signUpWithCredential({ email: randomEmail("inviter"), password: "invite compat 1", verificationCallbackUrl: callbackUrl, noRedirect: true })).status).toBe("ok");
      const team = await (await owner.getUser({ or: "throw" })).createTeam({ displayName: "Invited by user" });
      const invitee = clientApp();
      const address = randomEmail("invited");
      expect((await invitee.signUpWithCredential({ email: address, password: "invite compat 1", verificationCallbackUrl: callbackUrl, noRedirect: true })).status).toBe("ok");
      const user = await invitee.getUser({ or: "throw" });
      await (await serverApp().getUser(user.id)).update({ primaryEmailVerified: true }); // invitations go to verified addresses
      await team.inviteUser({ email: address, callbackUrl: "http://localhost:3000/handler/team-invitation" });
      const received = await (await invitee.getUser({ or: "throw" })).listTeamInvitations();
      expect(received.map((i: { teamId: string; teamDisplayName: string; recipientEmail: string }) => [i.teamId, i.teamDisplayName, i.recipientEmail])).toEqual([[team.id, "Invited by user", address]]);
      await received[0].accept();
      expect((await (await invitee.getUser({ or: "throw" })).listTeams()).map((t: { id: string }) => t.id)).toContain(team.id);
      expect(await (await invitee.getUser({ or: "throw" })).listTeamInvitations()).toEqual([]);
    },
  );

  where(features.analytics, async () => {
    const sender = (clientApp() as unknown as Record<symbol, Record<string, unknown> | undefined>)[internals];
    expect(sender?.sendAnalyticsEventBatch).toBeUndefined();
  })(
    features.analytics
      ? "sends an analytics batch as JSON and as gzip (application/octet-stream) with the SDK's event sender, for an anonymous session"
      : missing("analytics", "sends no analytics events"),
    async () => {
      // In a browser the event tracker does this on its own; in Node, the same sender through the SDK's internals.
      const app = clientApp();
      const anon = await app.getUser({ or: "anonymous" });
      const sender = (app as Record<symbol, { sendAnalyticsEventBatch(body: string, o: { keepalive: boolean }): Promise<{ status: string; data?: Response; error?: unknown }>; addRequestListener(l: (r: unknown) => void): void }>)[internals]!;
      const encodings: string[] = [];
      const marker = `/compat-${randomBytes(3).toString("hex")}`;
      for (const keepalive of [true, false]) {
        const path = `${marker}/${keepalive ? "json" : "gzip"}`;
        const body = JSON.stringify({
          session_replay_segment_id: randomUUID(),
          batch_id: randomUUID(),
          sent_at_ms: Date.now(),
          events: [{ event_type: "$page-view", event_at_ms: Date.now(), data: { url: `http://localhost:3000${path}`, path, title: "Compat", entry_type: "initial" } }],
        });
        const realFetch = globalThis.fetch;
        globalThis.fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
          if (String(input).includes("/analytics/events/batch")) encodings.push(new Headers(init?.headers).get("content-type") ?? "");
          return realFetch(input, init);
        }) as typeof fetch;
        let result;
        try {
          result = await sender.sendAnalyticsEventBatch(body, { keepalive });
        } finally {
          globalThis.fetch = realFetch;
        }
        expect(result.status, String(result.error)).toBe("ok");
        expect(result.data!.status).toBe(200);
      }
      // keepalive sends plain JSON; otherwise the SDK gzips with CompressionStream and sends application/octet-stream.
      expect(encodings).toEqual(["application/json", "application/octet-stream"]);
      const recent = await call(getStack(), "POST", "/api/v1/internal/analytics/query", { headers: adminHeaders(), body: { query: "recent_events", params: { user_id: anon.id, limit: 5 } } });
      expect(recent.status).toBe(200);
      expect(recent.json.result.map((e: { data: { path: string } }) => e.data.path).sort()).toEqual([`${marker}/gzip`, `${marker}/json`]);
    },
  );

  it(
    features.scheduledEmail ? "schedules an e-mail with the server app's sendEmail({ scheduledAt }); it is delivered when due" : missing("e-mail scheduling", "sends at once, which this test checks"),
    async () => {
      const stack = getStack();
      // sendEmail needs the project's own SMTP server (REQUIRES_CUSTOM_EMAIL_SERVER on the shared one): a test server
      // for this test only, so the other tests' system e-mails keep going to the dev mailbox.
      const smtp = await startTestSmtp();
      const setEmailConfig = async (config: Record<string, unknown>) =>
        expect((await call(stack, "PATCH", "/api/v1/internal/projects/current", { headers: adminHeaders(), body: { config } })).status).toBe(200);
      await setEmailConfig(standardConfig(smtp.port));
      try {
        const email = randomEmail("scheduled");
        const user = await serverApp().createUser({ primaryEmail: email, primaryEmailVerified: true });
        const subject = `Compat ${randomBytes(3).toString("hex")}`;
        const dueAt = Date.now() + 3_000;
        await serverApp().sendEmail({ userIds: [user.id], subject, html: "<p>Compat hello</p>", ...(features.scheduledEmail ? { scheduledAt: new Date(dueAt) } : {}) });
        if (features.scheduledEmail) {
          const outbox = await call(stack, "GET", "/api/v1/emails/outbox?status=scheduled", { headers: headersFor(stack.demo, "server") });
          expect(outbox.json.items.find((e: { to: { user_id?: string } }) => e.to.user_id === user.id)).toMatchObject({ status: "scheduled", scheduled_at_millis: dueAt, subject });
          expect(smtp.received.filter((m) => m.to.includes(email))).toEqual([]);
        }
        await expect.poll(() => smtp.received.filter((m) => m.to.includes(email)).length, { timeout: 20_000, interval: 200 }).toBe(1);
        expect(smtp.received.find((m) => m.to.includes(email))!.decoded).toContain(subject);
        if (features.scheduledEmail) expect(Date.now()).toBeGreaterThanOrEqual(dueAt);
      } finally {
        await setEmailConfig({ email_config: { type: "shared" } });
        await smtp.close();
      }
    },
    30_000,
  );
}
