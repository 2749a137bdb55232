/**
 * Issue 17: the dashboard's "Audit log" area in Chromium against the whole platform. A new owner creates a project
 * and an API key set in the dashboard (an admin write with their admin access token); the audit view shows it with
 * the owner as actor, the detail shows the before/after diff without the key's secret, the filters narrow the table
 * and the export button downloads JSON lines. Screenshots go to frontends/e2e/artifacts/ (git-ignored).
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { TestPlatform } from "../../../deploy/src/test-platform.ts";
import type { Browser } from "../src/browser.ts";
import { createKeysInDashboard, startBrowserPlatform, stopBrowserPlatform } from "../src/platform.ts";
import { shot } from "../src/screenshots.ts";
import { PASSWORD, ownerWithProject, run } from "../src/accounts.ts";

vi.setConfig({ testTimeout: 180_000 });

let tp: TestPlatform;
let browser: Browser;
let url: string;

beforeAll(async () => ({ tp, browser, url } = await startBrowserPlatform()), 300_000);

afterAll(() => stopBrowserPlatform({ tp, browser }));

describe("dashboard: audit log", () => {
  it("shows a write just made in the dashboard, its detail without secrets, filters and exports", async () => {
    const page = await browser.newPage();
    const projectPath = await ownerWithProject(page, url, `auditor-${run}@example.com`, PASSWORD, `Audit ${run}`);

    // The write: a key set created in the dashboard (admin access token of the owner).
    const { secretServerKey } = await createKeysInDashboard(page, url, projectPath, { description: `audited-${run}` });
    expect(secretServerKey).toMatch(/^ssk_/);

    await page.goto(`${url}${projectPath}/audit`);
    await page.getByRole("heading", { name: "Audit log" }).waitFor();
    const row = page.getByRole("row").filter({ hasText: "api_key.create" });
    await row.first().waitFor();
    await expect(row.first().textContent()).resolves.toContain("Dashboard user");
    await shot(page, "audit-log");

    await row.first().click();
    const detail = page.getByTestId("audit-detail");
    await detail.waitFor();
    const detailText = (await detail.textContent()) ?? "";
    expect(detailText).toContain(`audited-${run}`);
    expect(detailText).toContain("[redacted]");
    expect(detailText).not.toContain(secretServerKey);
    await shot(page, "audit-log-detail");

    // A filter that matches nothing, then one that matches the write.
    await page.getByLabel("Resource type").fill("team");
    await page.getByRole("button", { name: "Apply" }).click();
    await page.getByText("No entries match.").waitFor();
    await page.getByLabel("Resource type").fill("api_key");
    await page.getByLabel("Actor", { exact: true }).selectOption("admin_user");
    await page.getByRole("button", { name: "Apply" }).click();
    await row.first().waitFor();
    await shot(page, "audit-log-filtered");

    const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Export JSON lines" }).click()]);
    const lines = readFileSync((await download.path())!, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l) as { action: string; actor: { type: string } });
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.every((l) => l.action.startsWith("api_key.") && l.actor.type === "admin_user")).toBe(true);
    await page.close();
  });
});
