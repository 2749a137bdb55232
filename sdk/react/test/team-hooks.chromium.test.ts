/**
 * useTeams, useTeam, usePermissions and usePermission in a real Chromium against the real gateway (identity, auth,
 * e-mail and teams-permissions services in this process, real PostgreSQL): the hooks re-render, without a reload,
 * when the page creates, renames and leaves teams through the SDK. Screenshots go to test-results/sdk/.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, headersFor, startStack, type Stack } from "../../../gateway/test/support.ts";
import { serveTestPage, type TestPageServer } from "./browser/serve.ts";

const ARTIFACTS = join(process.cwd(), "test-results", "sdk");
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

let stack: Stack;
let server: TestPageServer;
let context: BrowserContext;
let profileDir: string;

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  stack = await startStack({ auth: true, teams: true });
  server = await serveTestPage();
  profileDir = mkdtempSync(join(tmpdir(), "chromium-profile-"));
  context = await chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 600, height: 360 },
    args: [`--explicitly-allowed-ports=${new URL(stack.url).port},${new URL(server.url).port}`, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
}, 180_000);

afterAll(async () => {
  await context?.close();
  await server?.close();
  await stack?.stop();
  if (profileDir) rmSync(profileDir, { recursive: true, force: true });
});

/** A new user with a session (refresh token) made by the server. */
async function newSession(): Promise<string> {
  const email = `hooks-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const created = await call(stack, "POST", "/api/v1/users", { headers: headersFor(stack.demo, "server"), body: { primary_email: email, display_name: "Team Player" } });
  expect(created.status).toBe(201);
  const session = await call(stack, "POST", "/api/v1/auth/sessions", { headers: headersFor(stack.demo, "server"), body: { user_id: created.json.id } });
  expect(session.status).toBe(200);
  return session.json.refresh_token as string;
}

async function openTeamsPage(refreshToken: string): Promise<Page> {
  await context.clearCookies();
  await context.addCookies([{ name: `stack-refresh-${stack.demo.projectId}`, value: refreshToken, url: server.url }]);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  (page as unknown as { vstErrors: string[] }).vstErrors = errors;
  const q = new URLSearchParams({ scenario: "teams", api: stack.url, project: stack.demo.projectId, key: stack.demo.publishableClientKey });
  await page.goto(`${server.url}/?${q}`);
  return page;
}

const text = (page: Page, id: string) => page.getByTestId(id).textContent();
const events = (page: Page) => page.evaluate(() => window.__events as string[]);

describe("team and permission hooks in Chromium", () => {
  it("re-render as the page creates, renames and leaves teams", async () => {
    const page = await openTeamsPage(await newSession());
    await expect.poll(() => text(page, "teams"), { timeout: 15_000 }).toBe("teams: none");
    expect(await text(page, "selected")).toBe("selected: none");
    expect(await text(page, "permissions")).toBe("permissions: none");
    expect(await text(page, "can-update")).toBe("can update: no");

    await page.getByRole("button", { name: "Create team" }).click();
    await expect.poll(() => text(page, "teams"), { timeout: 10_000 }).toBe("teams: Team 1");
    await expect.poll(() => text(page, "selected"), { timeout: 10_000 }).toBe("selected: Team 1");
    // The creator's default permissions (team_admin and what it contains), recursively.
    await expect.poll(() => text(page, "permissions"), { timeout: 10_000 }).toMatch(/^permissions: .*\$update_team.*team_admin/);
    expect(await text(page, "can-update")).toBe("can update: yes");
    await page.screenshot({ path: join(ARTIFACTS, "hooks-teams-created.png") });

    await page.getByRole("button", { name: "Create team" }).click();
    await expect.poll(() => text(page, "teams"), { timeout: 10_000 }).toBe("teams: Team 1, Team 2");
    await expect.poll(() => text(page, "selected"), { timeout: 10_000 }).toBe("selected: Team 2");

    await page.getByRole("button", { name: "Rename selected" }).click();
    await expect.poll(() => text(page, "teams"), { timeout: 10_000 }).toBe("teams: Team 1, Team 2 renamed");
    await expect.poll(() => text(page, "selected"), { timeout: 10_000 }).toBe("selected: Team 2 renamed");

    await page.getByRole("button", { name: "Leave selected" }).click();
    await expect.poll(() => text(page, "teams"), { timeout: 10_000 }).toBe("teams: Team 1");
    await expect.poll(() => text(page, "selected"), { timeout: 10_000 }).toBe("selected: none");
    expect(await text(page, "permissions")).toBe("permissions: none");
    await page.screenshot({ path: join(ARTIFACTS, "hooks-teams-after-leave.png") });

    expect((await events(page)).filter((e) => e.includes(":error:"))).toEqual([]);
    expect((page as unknown as { vstErrors: string[] }).vstErrors).toEqual([]);
    await page.close();
  }, 60_000);
});
