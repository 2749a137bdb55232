/**
 * Issue 21: the overview's charts (axes, values, date range, granularity, weekly retention) from what the platform
 * records, and the API keys area at phone width (390 px: the Revoke button fully on screen). Chromium against the
 * whole platform; screenshots at desktop and phone width go to frontends/e2e/artifacts/.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Locator, Page } from "playwright-core";
import type { TestPlatform } from "../../../deploy/src/test-platform.ts";
import { screenshotBothThemes, type Browser } from "../src/browser.ts";
import { createKeysInDashboard, startBrowserPlatform, stopBrowserPlatform } from "../src/platform.ts";
import { shot } from "../src/screenshots.ts";
import { PASSWORD, ownerWithProject, run } from "../src/accounts.ts";

vi.setConfig({ testTimeout: 180_000 });

const PHONE = { width: 390, height: 844 };
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

let tp: TestPlatform;
let browser: Browser;
let url: string;
let page: Page;
let projectPath = "";
let secret = "";

beforeAll(async () => {
  ({ tp, browser, url } = await startBrowserPlatform());
  page = await browser.newPage();
  projectPath = await ownerWithProject(page, url, `overview-owner-${run}@example.com`, PASSWORD, `Overview ${run}`);
  secret = (await createKeysInDashboard(page, url, projectPath)).secretServerKey;
}, 300_000);

afterAll(() => stopBrowserPlatform({ tp, browser }));

/**
 * Whether the element's box lies wholly inside the page's viewport, as the page first shows it (no scrolling: Playwright's
 * scrollIntoView would also scroll a table's own horizontal scroller and hide the very cut-off this checks).
 */
async function insideViewport(el: Locator): Promise<{ box: unknown; inside: boolean }> {
  await el.waitFor();
  const box = await el.boundingBox();
  const viewport = page.viewportSize()!;
  const inside = !!box && box.x >= 0 && box.y >= 0 && box.x + box.width <= viewport.width && box.y + box.height <= viewport.height;
  return { box, inside };
}

describe("dashboard overview", () => {
  it("charts today's sign-up with axes, a hover value, a date range, weekly buckets and the week's retention cohort", async () => {
    const projectId = projectPath.split("/")[2]!;
    const res = await fetch(`${tp.gatewayUrl}/api/v1/users`, {
      method: "POST",
      headers: { "x-stack-project-id": projectId, "x-stack-access-type": "server", "x-stack-secret-server-key": secret, "content-type": "application/json" },
      body: JSON.stringify({ primary_email: `signed-up-today-${run}@example.com` }),
    });
    expect(res.status).toBe(201);
    await page.goto(`${url}${projectPath}`);
    await page.getByRole("heading", { name: "Overview" }).waitFor();

    const signUps = page.getByTestId("sign-ups-chart");
    await signUps.waitFor();
    await expect.poll(() => signUps.getAttribute("data-total")).toBe("1");
    await page.getByRole("img", { name: "Sign-ups per day: 1 in 30 days" }).waitFor();
    // Axes: y ticks 0 and 1, today's date under the last bar.
    expect(await signUps.locator('[data-axis="y"] text').allTextContents()).toEqual(["0", "1"]);
    const now = new Date();
    const todayLabel = `${now.getUTCDate()} ${MONTHS[now.getUTCMonth()]}`;
    expect((await signUps.locator('[data-axis="x"] text').allTextContents()).at(-1)).toBe(todayLabel);
    // The value of the bar under the pointer (the last one: today), and with the keyboard.
    const svg = signUps.locator("svg");
    const box = (await svg.boundingBox())!;
    await page.mouse.move(box.x + box.width - 12, box.y + box.height / 2);
    await expect.poll(() => page.getByTestId("sign-ups-chart-value").textContent()).toBe(`${todayLabel} ${now.getUTCFullYear()} · sign-ups: 1`);
    await page.mouse.move(0, 0);
    await svg.focus();
    await page.keyboard.press("ArrowLeft");
    await page.keyboard.press("ArrowRight");
    await expect.poll(() => page.getByTestId("sign-ups-chart-value").textContent()).toBe(`${todayLabel} ${now.getUTCFullYear()} · sign-ups: 1`);
    // The accessible table has today's row.
    expect(await signUps.locator("table tr").last().textContent()).toBe(`${todayLabel} ${now.getUTCFullYear()}1`);
    await shot(page, "dashboard-overview-charts");

    // Last 90 days, weekly: 13 or 14 ISO weeks, the sign-up in the last one, and this week's cohort of one user.
    await page.getByLabel("Date range").selectOption("90");
    await page.getByLabel("Granularity").selectOption("week");
    await page.getByRole("img", { name: /^Sign-ups per week: 1 in 1[34] weeks$/ }).waitFor();
    const retention = page.getByTestId("retention");
    await retention.waitFor();
    expect(await retention.locator("tbody tr").count()).toBe(1);
    expect(await retention.locator("tbody tr th").textContent()).toMatch(/^week of \d{1,2} [A-Z][a-z]{2} \d{4}$/);
    expect(await retention.locator("tbody tr td").first().textContent()).toBe("1");
    await page.getByLabel("Granularity").selectOption("month");
    await page.getByRole("img", { name: /^Sign-ups per month: 1 in [34] months$/ }).waitFor();
    await page.getByLabel("Granularity").selectOption("week");
    await page.getByRole("img", { name: /^Sign-ups per week/ }).waitFor();
    await shot(page, "dashboard-overview-weekly");
    await page.setViewportSize(PHONE);
    expect((await insideViewport(page.getByLabel("Granularity"))).inside).toBe(true);
    await screenshotBothThemes(page, "dashboard-overview-weekly-390");
    await page.setViewportSize({ width: 1280, height: 800 });
  });
});

describe("API keys at phone width", () => {
  it("keeps each key set's Revoke button fully on screen at 390 px", async () => {
    await page.setViewportSize(PHONE);
    await page.goto(`${url}${projectPath}/keys`);
    const revoke = page.getByRole("button", { name: /^Revoke e2e$/ });
    await revoke.waitFor();
    const { box, inside } = await insideViewport(revoke);
    expect(inside, `Revoke at ${JSON.stringify(box)} in a ${PHONE.width} px viewport`).toBe(true);
    expect(await page.evaluate("document.documentElement.scrollWidth > window.innerWidth")).toBe(false);
    // Nor does the table hide a column behind its own sideways scroll.
    const table = page.getByRole("table", { name: "API key sets" }).locator("xpath=..");
    expect(await table.evaluate((el) => el.scrollWidth - el.clientWidth)).toBeLessThanOrEqual(0);
    await screenshotBothThemes(page, "dashboard-keys-390");
    await page.setViewportSize({ width: 1280, height: 800 });
  });
});
