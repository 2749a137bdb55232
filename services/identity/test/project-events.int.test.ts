import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { IdentityEvents } from "../src/events.ts";
import { outboxEvents, startIdentity, type IdentityHarness } from "./support.ts";

let h: IdentityHarness;
beforeAll(async () => {
  h = await startIdentity();
});
afterAll(async () => {
  await h?.stop();
});

const secret = (what: string) => `${what}-${randomBytes(12).toString("hex")}`;

function standardConfig(smtpPassword: string, clientSecret: string): string {
  return JSON.stringify({
    email_config: { type: "standard", host: "smtp.example.com", port: 587, username: "mailer", password: smtpPassword, sender_name: "Acme", sender_email: "noreply@acme.example" },
    oauth_providers: [{ id: "github", type: "standard", client_id: "gh-client-id", client_secret: clientSecret }],
  });
}

/** The secret fields of a project's two config views, removed (what an event must equal). */
function redacted(project: { adminConfigJson: string; renderedConfigJson: string }) {
  const admin = JSON.parse(project.adminConfigJson);
  delete admin.email_config.password;
  for (const p of admin.oauth_providers) delete p.client_secret;
  const rendered = JSON.parse(project.renderedConfigJson);
  delete rendered.emails.server.password;
  for (const p of Object.values(rendered.auth.oauth.providers) as { clientSecret?: string }[]) delete p.clientSecret;
  return { admin, rendered };
}

describe("project events carry no secret (issue 6: a stolen dump reveals none)", () => {
  it("created, updated and config-override events leave the SMTP password and OAuth client secrets out; GetProject keeps them", async () => {
    const smtp1 = secret("smtp");
    const oauth1 = secret("oauth");
    const { project: created } = await h.projects.createProject({ displayName: "Secretive", configUpdateJson: standardConfig(smtp1, oauth1) });
    const id = created!.id;
    expect(JSON.parse(created!.adminConfigJson).email_config.password).toBe(smtp1);

    const smtp2 = secret("smtp");
    const oauth2 = secret("oauth");
    await h.projects.updateProject({ projectId: id, configUpdateJson: standardConfig(smtp2, oauth2) });
    const smtp3 = secret("smtp");
    await h.projects.updateConfigOverride({ projectId: id, configOverrideJson: JSON.stringify({ "emails.server.password": smtp3 }) });

    const { project } = await h.projects.getProject({ projectId: id });
    expect(JSON.parse(project!.adminConfigJson).email_config.password).toBe(smtp3);
    expect(JSON.parse(project!.adminConfigJson).oauth_providers[0].client_secret).toBe(oauth2);
    expect(JSON.parse(project!.renderedConfigJson).emails.server.password).toBe(smtp3);

    const events = [
      ...(await outboxEvents(h.pool, IdentityEvents.projectCreated)).map((e) => e.payload.project!),
      ...(await outboxEvents(h.pool, IdentityEvents.projectUpdated)).map((e) => e.payload.project!),
    ].filter((p) => p.id === id);
    expect(events).toHaveLength(3);
    // The last event is the project as GetProject shows it, minus exactly the secrets.
    const last = events.at(-1)!;
    expect({ ...last, adminConfigJson: "", renderedConfigJson: "" }).toEqual({ ...project!, adminConfigJson: "", renderedConfigJson: "" });
    expect({ admin: JSON.parse(last.adminConfigJson), rendered: JSON.parse(last.renderedConfigJson) }).toEqual(redacted(project!));
    expect(JSON.parse(last.adminConfigJson).email_config).toMatchObject({ type: "standard", host: "smtp.example.com", username: "mailer" });
    expect(JSON.parse(last.adminConfigJson).oauth_providers[0]).toMatchObject({ id: "github", type: "standard", client_id: "gh-client-id" });

    // Not in any form in the stored envelopes (bytea) either.
    const { rows } = await h.pool.query<{ envelope: Buffer }>(`SELECT envelope FROM outbox`);
    const stored = Buffer.concat(rows.map((r) => r.envelope));
    for (const s of [smtp1, oauth1, smtp2, oauth2, smtp3]) expect(stored.includes(Buffer.from(s))).toBe(false);
  });
});
