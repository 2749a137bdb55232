/**
 * E-mail requests travel with their subject, bodies and variables sealed (EmailRequested.sealed_content): the real
 * producers' mailers (auth, teams-permissions) seal them into the outbox under the deployment's master keys, and the
 * e-mail service opens them. Covers both producers, requests from before sealing, master-key rotation, and sealed
 * content that cannot be opened (recorded as a failed e-mail; later e-mails still flow).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withTransaction } from "@vestibule/shared/db";
import { masterKeys, readConfig, type MasterKey } from "@vestibule/shared/config";
import { sealFields } from "@vestibule/shared/events";
import { generateMasterKeyEntry, PayloadSealer, randomCode } from "@vestibule/shared/secrets";
import { magicLinkEmail } from "../../auth/src/domain/emails.ts";
import { Mailer as AuthMailer } from "../../auth/src/mailer.ts";
import { TeamsEvents } from "../../teams-permissions/src/events.ts";
import { EmailRequester } from "@vestibule/shared/emails";
import { SEALED_EMAIL_FIELDS } from "../src/events.ts";
import { startEmailStack, unique, waitFor, type EmailStack } from "./support.ts";

const k1 = generateMasterKeyEntry("k1");
const k2 = generateMasterKeyEntry("k2");
const keys = (entries: string): readonly MasterKey[] => readConfig({ k: masterKeys("K", "keys") }, { K: entries }).k;

let stack: EmailStack;
let projectId: string;
beforeAll(async () => {
  // Producers and identity know k1; the e-mail service already knows k2 as well (rotation step 1).
  stack = await startEmailStack({ VESTIBULE_MASTER_KEYS: k1 }, { VESTIBULE_MASTER_KEYS: `${k1},${k2}` });
  projectId = await stack.newProject({ magic_link_enabled: true }, "Sealed");
});
afterAll(async () => {
  await stack?.stop();
});

/** Everything the producer's outbox and the bus's log hold, as one buffer. */
async function storedEvents(from: "auth" | "teams_permissions"): Promise<Buffer> {
  const outbox = await stack.producers[from].ctx.pool.query<{ envelope: Buffer }>(`SELECT envelope FROM outbox`);
  const bus = await stack.email.ctx.pool.query<{ data: Buffer }>(`SELECT data FROM vestibule_bus.events`);
  return Buffer.concat([...outbox.rows.map((r) => r.envelope), ...bus.rows.map((r) => r.data)]);
}

function authMagicLink(mailer: AuthMailer, to: string): Promise<{ code: string; otp: string }> {
  const code = randomCode(45);
  const otp = code.slice(0, 6).toUpperCase();
  const content = magicLinkEmail("Sealed", `https://app.example/handler/magic-link-callback?code=${code}`, otp);
  const p = stack.producers.auth;
  return withTransaction(p.ctx.pool, (tx) => mailer.request(tx, { projectId, to, userId: "", content })).then(async () => {
    await p.relay.flush();
    return { code, otp };
  });
}

async function failedEmailTo(to: string) {
  return waitFor(async () => (await stack.emails.listSentEmails({ projectId })).emails.find((e) => e.to[0] === to && e.status === "failed"));
}

describe("sealed e-mail requests", () => {
  it("auth's magic link: sealed in the outbox and on the bus, opened and delivered by the e-mail service", async () => {
    const to = `sealed.${unique()}@example.com`;
    const { code, otp } = await authMagicLink(new AuthMailer(stack.producers.auth.ctx.outbox, keys(k1)), to);
    const mail = await stack.waitForMail(to);
    expect(mail.subject).toBe(`Sign in to Sealed: Your code is ${otp}`);
    expect(mail.text).toContain(`?code=${code}`);
    expect(mail.template).toBe("magic_link");
    const stored = await storedEvents("auth");
    expect(stored.includes(Buffer.from(to))).toBe(true); // the recipient stays readable
    for (const secret of [code, code.slice(6), `Your code is ${otp}`]) expect(stored.includes(Buffer.from(secret))).toBe(false);
  });

  it("teams' invitation: sealed with the teams schema, opened with the shared wire shape", async () => {
    const to = `invitee.${unique()}@example.com`;
    const code = randomCode(45);
    const link = `https://app.example/handler/team-invitation?code=${code}`;
    const p = stack.producers.teams_permissions;
    await withTransaction(p.ctx.pool, (tx) =>
      new EmailRequester(p.ctx.outbox, keys(k1), TeamsEvents.emailRequested).request(tx, {
        projectId,
        to,
        subject: "You have been invited to join Crew",
        html: `<a href="${link}">join</a>`,
        text: `join: ${link}`,
        notificationCategory: "Transactional",
        template: "team_invitation",
        variablesJson: JSON.stringify({ team_display_name: "Crew", link, project_display_name: "Sealed" }),
      }),
    );
    await p.relay.flush();
    const mail = await stack.waitForMail(to);
    expect(mail.subject).toBe("You have been invited to join Crew");
    expect(mail.text).toContain(code);
    expect((await storedEvents("teams_permissions")).includes(Buffer.from(code))).toBe(false);
  });

  it("still accepts a request from before sealing (rolling upgrade)", async () => {
    const to = `legacy.${unique()}@example.com`;
    await stack.request({ projectId, to, subject: "Legacy", text: "sent in clear", notificationCategory: "Transactional" });
    expect((await stack.waitForMail(to)).text).toContain("sent in clear");
  });

  it("master-key rotation: opens requests sealed under the new first key and under the old one", async () => {
    const newFirst = `rotated.${unique()}@example.com`;
    const { code } = await authMagicLink(new AuthMailer(stack.producers.auth.ctx.outbox, keys(`${k2},${k1}`)), newFirst);
    expect((await stack.waitForMail(newFirst)).text).toContain(code);
    const oldKey = `old-key.${unique()}@example.com`;
    const old = await authMagicLink(new AuthMailer(stack.producers.auth.ctx.outbox, keys(k1)), oldKey);
    expect((await stack.waitForMail(oldKey)).text).toContain(old.code);
  });

  it("records a request sealed under a master key it does not know as failed, keeping no content, and goes on", async () => {
    const unknownKey = `unknown-key.${unique()}@example.com`;
    await authMagicLink(new AuthMailer(stack.producers.auth.ctx.outbox, keys(generateMasterKeyEntry("k9"))), unknownKey);
    const failed = await failedEmailTo(unknownKey);
    expect(failed.error).toContain('master key "k9"');
    expect(failed.subject).toBe("");
    const after = `after.${unique()}@example.com`;
    await authMagicLink(new AuthMailer(stack.producers.auth.ctx.outbox, keys(k1)), after);
    await stack.waitForMail(after);
  });

  it("refuses sealed content moved to another recipient (bound to the event type, project and recipient)", async () => {
    const victim = `victim.${unique()}@example.com`;
    const attacker = `attacker.${unique()}@example.com`;
    const sealed = sealFields(new PayloadSealer(keys(k1)), SEALED_EMAIL_FIELDS, "auth.email.requested.v1", {
      projectId,
      to: victim,
      subject: "Reset",
      text: "https://x.example/?code=stolen",
      notificationCategory: "Transactional",
    });
    await stack.request({ ...sealed, to: attacker });
    const failed = await failedEmailTo(attacker);
    expect(failed.error).toContain("does not authenticate");
    // The same bytes on the other producer's subject do not open either.
    const other = `other.${unique()}@example.com`;
    await stack.request({ ...sealFields(new PayloadSealer(keys(k1)), SEALED_EMAIL_FIELDS, "auth.email.requested.v1", { projectId, to: other, text: "x" }) }, "teams_permissions");
    expect((await failedEmailTo(other)).error).toContain("does not authenticate");
  });
});
