/**
 * Issue 21's first-visit performance budget, measured in Chromium against the whole platform on this machine
 * (localhost, a fresh browser context per visit, so nothing is cached):
 *   hosted sign-in usable      < 1.0 s  (navigation start → e-mail field, password field and enabled "Sign in")
 *   dashboard sign-in usable   < 1.5 s  (the shell, then the federated sign-in pages)
 *   area switch                < 300 ms (click on an area tab → its heading, the area's remote loaded cold)
 * Each figure is the best of three cold visits: CI runs two test files at once on two cores, and one visit that waits
 * behind another file's burst says nothing about the pages. The table is printed on every run.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Page } from "playwright-core";
import { startTestPlatform, type TestPlatform } from "../../../deploy/src/test-platform.ts";
import { launchBrowser, type Browser } from "../src/browser.ts";
import { ownerWithProject } from "../src/accounts.ts";

vi.setConfig({ testTimeout: 240_000 });

const BUDGET_MS = { hostedSignIn: 1_000, dashboardSignIn: 1_500, areaSwitch: 300 } as const;
const TRIES = 3;
const PASSWORD = "correct-horse-battery-7";
const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

let tp: TestPlatform;
let browser: Browser;
let url: string;
const measured: Record<string, number[]> = {};

function record(name: string, ms: number): void {
  (measured[name] ??= []).push(Math.round(ms));
}

function best(name: string): number {
  return Math.min(...(measured[name] ?? [Number.POSITIVE_INFINITY]));
}

/** Milliseconds from navigation start until the sign-in form can be used. */
async function signInUsable(page: Page, path: string): Promise<number> {
  const started = Date.now();
  await page.goto(`${url}${path}`, { waitUntil: "commit" });
  await page.getByLabel("E-mail", { exact: true }).waitFor();
  await page.getByLabel("Password", { exact: true }).waitFor();
  const button = page.getByRole("button", { name: "Sign in", exact: true });
  await button.waitFor();
  await page.waitForFunction(`[...document.querySelectorAll("button")].some((b) => b.textContent.trim() === "Sign in" && !b.disabled)`);
  return Date.now() - started;
}

beforeAll(async () => {
  tp = await startTestPlatform({ platform: { frontends: true } });
  url = tp.platform.frontendsUrl!;
  browser = await launchBrowser();
  // Warm the servers (not the browser): the first request of a freshly started process compiles its handlers.
  for (const path of ["/handler/sign-in", "/auth/sign-in"]) await (await fetch(`${url}${path}`)).text();
}, 240_000);

afterAll(async () => {
  const rows = Object.entries(measured).map(([name, values]) => `  ${name.padEnd(22)} best ${String(Math.min(...values)).padStart(5)} ms   (${values.join(", ")})`);
  console.log(`first-visit budget (best of ${TRIES} cold visits):\n${rows.join("\n")}`);
  await browser?.close();
  await tp?.stop();
});

describe("first visit, cold, on localhost", () => {
  it.each([
    { name: "hosted sign-in", path: "/handler/sign-in", budget: BUDGET_MS.hostedSignIn },
    { name: "dashboard sign-in", path: "/auth/sign-in", budget: BUDGET_MS.dashboardSignIn },
  ])("$name is usable in < $budget ms", async ({ name, path, budget }) => {
    for (let i = 0; i < TRIES; i++) {
      const context = await browser.newContext();
      record(name, await signInUsable(await context.newPage(), path));
      await context.close();
    }
    expect(best(name)).toBeLessThan(budget);
  });

  it(`switching to an area the first time takes < ${BUDGET_MS.areaSwitch} ms`, async () => {
    const areas = [
      { link: "Users", heading: "Users" },
      { link: "API keys", heading: /API keys/ },
      { link: "Project settings", heading: "Project settings" },
    ];
    for (let i = 0; i < TRIES; i++) {
      const context = await browser.newContext();
      const page = await context.newPage();
      await ownerWithProject(page, url, `budget-${run}-${i}@example.com`, PASSWORD, `Budget ${run} ${i}`);
      await page.waitForLoadState("networkidle", { timeout: 10_000 }).catch(() => undefined);
      const nav = page.getByRole("navigation", { name: "Project" });
      for (const area of areas) {
        const started = Date.now();
        await nav.getByRole("link", { name: area.link, exact: true }).click();
        await page.getByRole("heading", { level: 1, name: area.heading }).waitFor();
        record(`area switch: ${area.link}`, Date.now() - started);
      }
      await context.close();
    }
    for (const area of areas) expect(best(`area switch: ${area.link}`), area.link).toBeLessThan(BUDGET_MS.areaSwitch);
  });
});
