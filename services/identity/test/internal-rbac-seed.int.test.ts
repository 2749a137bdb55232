/**
 * The `internal` project's team_member / team_admin definitions (INTERNAL_RBAC_SEED) reach deployments whose internal
 * project was created before the seed existed: once, on start, forward only, without touching an operator's own
 * definitions, with the usual identity.project.updated.v1.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "@vestibule/shared/log";
import { startService } from "@vestibule/shared/service";
import { applyInternalRbacSeed, INTERNAL_RBAC_SEED_ID } from "../src/bootstrap.ts";
import { internalProjectSeedConfig, overrideFromAdminConfigUpdate } from "../src/domain/config/index.ts";
import { IdentityEvents } from "../src/events.ts";
import { identityService } from "../src/server.ts";
import { outboxEvents, startIdentity, type IdentityHarness } from "./support.ts";

let h: IdentityHarness;
beforeAll(async () => {
  h = await startIdentity();
});
afterAll(async () => {
  await h?.stop();
});

const SEEDED = {
  team_member: { description: "Default permission for team members", scope: "team", containedPermissionIds: { $read_members: true } },
  team_admin: {
    description: "Default permission for team admins",
    scope: "team",
    containedPermissionIds: { $read_members: true, $remove_members: true, $update_team: true },
  },
};

async function internal(): Promise<{ version: number; permissions: Record<string, unknown> }> {
  const { project } = await h.projects.getProject({ projectId: "internal" });
  return { version: Number(project!.version), permissions: JSON.parse(project!.renderedConfigJson).rbac.permissions };
}

/** Puts the internal project back to what a deployment from before the seed stored: no rbac keys, no seed record. */
async function asBeforeTheSeed(extra: Record<string, unknown> = {}): Promise<void> {
  const override = { ...overrideFromAdminConfigUpdate(internalProjectSeedConfig()), ...extra };
  await h.pool.query(`UPDATE projects SET config_override = $1 WHERE id = 'internal'`, [JSON.stringify(override)]);
  await h.pool.query(`DELETE FROM applied_seeds WHERE id = $1`, [INTERNAL_RBAC_SEED_ID]);
}

const updatedEvents = async () => (await outboxEvents(h.pool, IdentityEvents.projectUpdated)).filter((e) => e.projectId === "internal");

describe("internal project rbac seed", () => {
  it("a new deployment has it from creation, recorded, and nothing is rewritten", async () => {
    const now = await internal();
    expect(now.permissions).toEqual(SEEDED);
    expect((await h.pool.query(`SELECT 1 FROM applied_seeds WHERE id = $1`, [INTERNAL_RBAC_SEED_ID])).rows).toHaveLength(1);
    expect(await updatedEvents()).toHaveLength(0);
    expect(await applyInternalRbacSeed(h.service.ctx)).toEqual([]);
    expect((await internal()).version).toBe(now.version);
  });

  it("an existing deployment gets it when a replica starts, once, with a project.updated event", async () => {
    await asBeforeTheSeed();
    const before = await internal();
    // Without the seed the internal project renders the defaults of any project (team_admin may delete teams...).
    expect(Object.keys((before.permissions.team_admin as { containedPermissionIds: object }).containedPermissionIds)).toContain("$delete_team");
    const eventsBefore = (await updatedEvents()).length;

    const replica = await startService(identityService, { env: h.service.ctx.env, log: createLogger({ service: "test", level: "silent" }) });
    await replica.relay.stop();
    await replica.stop();
    const after = await internal();
    expect(after.permissions).toEqual(SEEDED);
    expect(after.version).toBe(before.version + 1);
    const events = await updatedEvents();
    expect(events).toHaveLength(eventsBefore + 1);
    expect(Number(events.at(-1)!.payload.project!.version)).toBe(after.version);
    expect(JSON.parse(events.at(-1)!.payload.project!.renderedConfigJson).rbac.permissions).toEqual(SEEDED);

    // Forward only: once recorded it never runs again, even if an operator later deletes the definitions.
    await h.projects.updateConfigOverride({ projectId: "internal", configOverrideJson: JSON.stringify({ "rbac.permissions.team_member": null }) });
    expect(await applyInternalRbacSeed(h.service.ctx)).toEqual([]);
    expect((await internal()).permissions).toEqual({ team_admin: SEEDED.team_admin });
  });

  it("keeps an operator's own definition and seeds only the other one", async () => {
    await asBeforeTheSeed({ "rbac.permissions.team_admin.description": "Our admins", "rbac.permissions.team_admin.scope": "team" });
    const mine = (await internal()).permissions.team_admin;
    expect(await applyInternalRbacSeed(h.service.ctx)).toEqual(["team_member"]);
    const after = await internal();
    expect(after.permissions.team_member).toEqual(SEEDED.team_member);
    expect(after.permissions.team_admin).toEqual(mine);
  });

  it("replicas starting together apply it once", async () => {
    await asBeforeTheSeed();
    const before = await internal();
    const results = await Promise.all([applyInternalRbacSeed(h.service.ctx), applyInternalRbacSeed(h.service.ctx), applyInternalRbacSeed(h.service.ctx)]);
    expect(results.filter((r) => r.length > 0)).toEqual([["team_member", "team_admin"]]);
    expect((await internal()).version).toBe(before.version + 1);
  });
});
