/**
 * Issue 21, depth: the dashboard's teams area in Chromium against the whole platform. A new owner opens a team's
 * detail (members, their permissions, created date), renames it, grants and revokes a member's permission, removes a
 * member and deletes the team, each behind a confirmation naming who or what goes; every result is read back through
 * the API. Failures (a member or a team removed behind the page's back) show the owner a sentence, never the API's
 * text. Screenshots at desktop and phone width in both themes go to frontends/e2e/artifacts/ (git-ignored).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Page } from "playwright-core";
import type { TestPlatform } from "../../../deploy/src/test-platform.ts";
import type { Browser } from "../src/browser.ts";
import { createKeysInDashboard, startBrowserPlatform, stopBrowserPlatform } from "../src/platform.ts";
import { shot, shotDialog } from "../src/screenshots.ts";
import { PASSWORD, ownerWithProject, run } from "../src/accounts.ts";

vi.setConfig({ testTimeout: 180_000 });

/** What the API's own texts for these failures look like: none may reach the page. */
const RAW_API_TEXT = /is not found in team|Team [0-9a-f-]{36} not found|Request validation|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}/;

let tp: TestPlatform;
let browser: Browser;
let url: string;

beforeAll(async () => ({ tp, browser, url } = await startBrowserPlatform()), 300_000);

afterAll(() => stopBrowserPlatform({ tp, browser }));

describe("dashboard: teams", () => {
  let page: Page;
  let projectPath = "";
  let server: (path: string, method?: string, body?: unknown) => Promise<{ status: number; json: any }>;
  const alice = `alice-${run}@example.com`;
  const bob = `bob-${run}@example.com`;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    page = await browser.newPage();
    projectPath = await ownerWithProject(page, url, `teams-owner-${run}@example.com`, PASSWORD, `Teams ${run}`);
    // The project's server key, shown once in the keys area: the test reads results back with it.
    const keys = await createKeysInDashboard(page, url, projectPath);
    server = async (path, method = "GET", body) => {
      const res = await fetch(`${tp.gatewayUrl}/api/v1${path}`, {
        method,
        headers: { ...keys.server, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
        body: body !== undefined ? JSON.stringify(body) : undefined,
      });
      return { status: res.status, json: await res.json().catch(() => null) };
    };
    for (const [name, email] of [["alice", alice], ["bob", bob]] as const) {
      const created = await server("/users", "POST", { primary_email: email });
      expect(created.status).toBe(201);
      ids[name] = created.json.id;
    }
    const team = await server("/teams", "POST", { display_name: `Ops ${run}`, creator_user_id: ids.alice });
    expect(team.status).toBe(201);
    ids.team = team.json.id;
    expect((await server(`/team-memberships/${ids.team}/${ids.bob}`, "POST", {})).status).toBe(201);
  }, 180_000);

  const directPermissions = async (userId: string) =>
    ((await server(`/team-permissions?team_id=${ids.team}&user_id=${userId}&recursive=false`)).json.items as { id: string }[]).map((p) => p.id);

  it("opens a team's detail from the list: created date, members and their permissions", async () => {
    // A team permission to grant later, made where owners make them.
    await page.goto(`${url}${projectPath}/teams`);
    const form = page.getByRole("form", { name: "Create a team permission" });
    await form.getByLabel("Permission ID").fill("read:reports");
    await form.getByRole("button", { name: "Create permission" }).click();
    await page.getByRole("cell", { name: "read:reports" }).first().waitFor();
    await page.getByRole("link", { name: `Ops ${run}` }).click();
    await page.getByRole("heading", { name: `Ops ${run}` }).waitFor();
    const created = new Date((await server(`/teams/${ids.team}`)).json.created_at_millis as number);
    await expect(page.getByTestId("team-created").textContent()).resolves.toContain(String(created.getFullYear()));
    const members = page.getByRole("list", { name: "Members", exact: true });
    await members.getByRole("listitem", { name: alice, exact: true }).waitFor();
    await members.getByRole("listitem", { name: bob, exact: true }).waitFor();
    // The creator's direct permissions are listed, and what they include beside them.
    for (const id of await directPermissions(ids.alice!)) await page.getByRole("list", { name: `Permissions of ${alice}` }).getByText(id, { exact: true }).waitFor();
    await shot(page, "teams-detail");
  });

  it("renames the team; an empty name is refused with a sentence", async () => {
    await page.getByLabel("Team name").fill("  ");
    await page.getByRole("button", { name: "Rename team" }).click();
    await page.getByText("Enter a name for the team.").waitFor();
    await page.getByLabel("Team name").fill(`Platform ${run}`);
    await page.getByRole("button", { name: "Rename team" }).click();
    await page.getByText("Team renamed.").waitFor();
    await page.getByRole("heading", { name: `Platform ${run}` }).waitFor();
    expect((await server(`/teams/${ids.team}`)).json.display_name).toBe(`Platform ${run}`);
  });

  it("grants and revokes a member's permission in the team", async () => {
    const row = page.getByRole("listitem", { name: bob, exact: true });
    await row.getByLabel(`Grant ${bob} a permission`).selectOption("read:reports");
    await row.getByRole("button", { name: "Grant", exact: true }).click();
    await page.getByRole("list", { name: `Permissions of ${bob}` }).getByText("read:reports").waitFor();
    await expect.poll(() => directPermissions(ids.bob!)).toContain("read:reports");
    await shot(page, "teams-detail-granted");
    await page.getByRole("button", { name: `Revoke read:reports from ${bob}` }).click();
    await page.getByRole("button", { name: `Revoke read:reports from ${bob}` }).waitFor({ state: "detached" });
    await expect.poll(() => directPermissions(ids.bob!)).not.toContain("read:reports");
  });

  it("removes a member after a confirmation naming them; Cancel keeps them", async () => {
    const row = page.getByRole("listitem", { name: bob, exact: true });
    await row.getByRole("button", { name: `Remove ${bob}` }).click();
    const dialog = page.getByRole("dialog", { name: `Remove ${bob} from Platform ${run}?` });
    await dialog.waitFor();
    await shotDialog(page, "teams-remove-member-confirm");
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await dialog.waitFor({ state: "hidden" });
    expect((await server(`/team-member-profiles/${ids.team}/${ids.bob}`)).status).toBe(200);
    await row.getByRole("button", { name: `Remove ${bob}` }).click();
    await dialog.getByRole("button", { name: "Remove member" }).click();
    await row.waitFor({ state: "detached" });
    const teamsOfBob = (await server(`/teams?user_id=${ids.bob}`)).json.items as { id: string }[];
    expect(teamsOfBob.map((t) => t.id)).not.toContain(ids.team);
  });

  it("says in a sentence that a member removed meanwhile is no longer in the team", async () => {
    expect((await server(`/team-memberships/${ids.team}/${ids.alice}`, "DELETE", {})).status).toBe(200);
    await page.getByRole("button", { name: `Remove ${alice}` }).click();
    await page.getByRole("dialog", { name: `Remove ${alice} from Platform ${run}?` }).getByRole("button", { name: "Remove member" }).click();
    await page.getByText("This user is not a member of this team (any more).", { exact: true }).waitFor();
    // The list catches up with what happened elsewhere.
    await page.getByRole("listitem", { name: alice, exact: true }).waitFor({ state: "detached" });
    await page.getByText("No members. Invite someone below.").waitFor();
    expect(await page.locator(".vs-alert").allTextContents()).not.toContainEqual(expect.stringMatching(RAW_API_TEXT));
    await shot(page, "teams-remove-member-failed");
  });

  it("deletes the team after a confirmation naming it", async () => {
    await page.reload();
    await page.getByRole("heading", { name: `Platform ${run}` }).waitFor();
    await page.getByRole("button", { name: "Delete team" }).click();
    const dialog = page.getByRole("dialog", { name: `Delete the team "Platform ${run}"?` });
    await dialog.waitFor();
    await expect(dialog.textContent()).resolves.toContain(`Platform ${run} and its pending invitations are deleted. This cannot be undone.`);
    await shotDialog(page, "teams-delete-confirm");
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await dialog.waitFor({ state: "hidden" });
    expect((await server(`/teams/${ids.team}`)).status).toBe(200);
    await page.getByRole("button", { name: "Delete team" }).click();
    await dialog.getByRole("button", { name: "Delete team" }).click();
    await page.waitForURL(new RegExp(`${projectPath}/teams$`));
    await page.getByRole("heading", { name: "Teams & permissions" }).waitFor();
    await page.getByRole("table", { name: "Teams" }).getByText("No teams yet.").waitFor();
    const gone = await server(`/teams/${ids.team}`);
    expect(gone.status).toBe(404);
    expect(gone.json.code).toBe("TEAM_NOT_FOUND");
  });

  it("says in a sentence that a team deleted meanwhile does not exist", async () => {
    const team = await server("/teams", "POST", { display_name: `Gone ${run}` });
    expect(team.status).toBe(201);
    await page.goto(`${url}${projectPath}/teams/${team.json.id}`);
    await page.getByRole("heading", { name: `Gone ${run}` }).waitFor();
    expect((await server(`/teams/${team.json.id}`, "DELETE", {})).status).toBe(200);
    await page.getByLabel("Team name").fill(`Back ${run}`);
    await page.getByRole("button", { name: "Rename team" }).click();
    await page.getByText("This team does not exist (it may have been deleted).").waitFor();
    expect(await page.locator(".vs-alert").allTextContents()).not.toContainEqual(expect.stringMatching(RAW_API_TEXT));
    await shot(page, "teams-rename-failed");
  });
});
