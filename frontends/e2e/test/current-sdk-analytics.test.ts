/**
 * Issue 13 acceptance in Chromium: a page using the current published SDK (`@stackframe/js` 2.8.108, browser build)
 * against the gateway makes no failing request while it starts and sends its analytics (the anonymous sign-up that
 * analytics needs, `/projects/current`, the page-view batches: gzip from the flush triggers, plain JSON on
 * pagehide), and the events appear in the dashboard overview of the project.
 *
 * The SDK's first minute is shortened with its own flush triggers (50 events, pagehide) instead of waiting for the
 * 10 s timer; the page then stays open a further 12 s so that the timer fires once as well.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Page, Response } from "playwright-core";
import type { TestPlatform } from "../../../deploy/src/test-platform.ts";
import { screenshotBothThemes, type Browser } from "../src/browser.ts";
import { run, PASSWORD } from "../src/accounts.ts";
import { startBrowserPlatform, stopBrowserPlatform } from "../src/platform.ts";
import { startSdkPage, type SdkPageServer } from "../src/sdk-page.ts";

vi.setConfig({ testTimeout: 180_000 });

let tp: TestPlatform;
let browser: Browser;
let dashboardUrl: string;
let sdkPage: SdkPageServer | undefined;

beforeAll(async () => ({ tp, browser, url: dashboardUrl } = await startBrowserPlatform()), 240_000);

afterAll(async () => {
  await sdkPage?.close();
  await browser?.close();
  await tp?.stop();
});

interface Exchange {
  readonly method: string;
  readonly path: string;
  readonly status: number;
  /** The status the SDK sees: x-hexclave-actual-status / x-stack-actual-status when the gateway overrode it. */
  readonly actualStatus: number;
  readonly contentType: string;
  readonly knownError: string | null;
}

/** Records every request of the page to the gateway, and every request that failed at the network level. */
function watchGateway(page: Page): { exchanges: Exchange[]; failures: string[] } {
  const exchanges: Exchange[] = [];
  const failures: string[] = [];
  const gateway = new URL(tp.gatewayUrl).origin;
  page.on("response", (res: Response) => {
    const req = res.request();
    if (new URL(req.url()).origin !== gateway) return;
    const headers = res.headers();
    const actual = headers["x-hexclave-actual-status"] ?? headers["x-stack-actual-status"];
    exchanges.push({
      method: req.method(),
      path: new URL(req.url()).pathname,
      status: res.status(),
      actualStatus: actual ? Number(actual) : res.status(),
      contentType: req.headers()["content-type"] ?? "",
      knownError: headers["x-hexclave-known-error"] ?? headers["x-stack-known-error"] ?? null,
    });
  });
  page.on("requestfailed", (req) => failures.push(`${req.method()} ${req.url()}: ${req.failure()?.errorText}`));
  return { exchanges, failures };
}

async function createProjectInDashboard(): Promise<{ projectId: string; publishableClientKey: string; projectPath: string; dashboard: Page }> {
  const page = await browser.newPage();
  await page.goto(`${dashboardUrl}/auth/sign-up`);
  await page.getByLabel("E-mail", { exact: true }).fill(`analytics-owner-${run}@example.com`);
  await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
  await page.getByLabel("Repeat password").fill(PASSWORD);
  await page.getByRole("button", { name: "Sign up" }).click();
  await page.getByRole("heading", { name: "Projects" }).waitFor();
  await page.getByLabel("Project name").fill(`Analytics ${run}`);
  await page.getByRole("button", { name: "Create project" }).click();
  await page.waitForURL(/\/projects\/[0-9a-f-]{36}$/);
  const projectPath = new URL(page.url()).pathname;
  await page.goto(`${dashboardUrl}${projectPath}/keys`);
  await page.getByLabel("Description").fill("shop front");
  await page.getByRole("button", { name: "Create keys" }).click();
  const publishableClientKey = (await page.getByTestId("copy-Publishable client key").textContent())!.trim();
  return { projectId: projectPath.split("/")[2]!, publishableClientKey, projectPath, dashboard: page };
}

describe("the current SDK (@stackframe/js 2.8.108) in a browser", () => {
  it("starts, signs up anonymously for analytics and sends page views and clicks with no failing request; the dashboard charts them", async () => {
    const { projectId, publishableClientKey, projectPath, dashboard } = await createProjectInDashboard();
    sdkPage = await startSdkPage({ baseUrl: tp.gatewayUrl, projectId, publishableClientKey });
    expect(sdkPage.sdkVersion).toBe("2.8.108");

    const page = await browser.newPage();
    const { exchanges, failures } = watchGateway(page);
    const warnings: string[] = [];
    page.on("console", (m) => {
      if (m.type() === "warning" || m.type() === "error") warnings.push(m.text());
    });
    const batches = () => exchanges.filter((e) => e.method === "POST" && e.path === "/api/v1/analytics/events/batch");

    await page.goto(sdkPage.url);
    await page.getByRole("button", { name: "Buy" }).waitFor();
    // Flush trigger 1: 50 events (the initial page view + 49 clicks) → a gzip batch as application/octet-stream.
    for (let i = 0; i < 49; i++) await page.getByRole("button", { name: "Buy" }).click();
    await expect.poll(() => batches().length, { timeout: 20_000 }).toBeGreaterThanOrEqual(1);
    expect(batches()[0]!.contentType).toBe("application/octet-stream");
    // A client-side navigation (page view) and a click, then flush trigger 2: pagehide → plain JSON with keepalive.
    await page.evaluate(`history.pushState({}, "", "/second")`);
    await page.getByRole("button", { name: "Buy" }).click();
    await page.evaluate(`window.dispatchEvent(new Event("pagehide"))`);
    await expect.poll(() => batches().length, { timeout: 20_000 }).toBeGreaterThanOrEqual(2);
    expect(batches()[1]!.contentType).toMatch(/^application\/json/);
    // The rest of the first minute's work: the 10 s flush timer fires once more (nothing queued: no batch).
    await page.waitForTimeout(12_000);

    const paths = exchanges.map((e) => `${e.method} ${e.path}`);
    expect(paths).toContain("POST /api/v1/auth/anonymous/sign-up");
    expect(paths).toContain("GET /api/v1/projects/current");
    const failing = exchanges.filter((e) => e.status >= 400 || e.actualStatus >= 400);
    expect(failing.map((e) => `${e.method} ${e.path} → ${e.actualStatus} ${e.knownError ?? ""}`)).toEqual([]);
    expect(failures).toEqual([]);
    expect(warnings.filter((w) => /EventTracker|flush failed|analytics/i.test(w))).toEqual([]);
    await page.close();

    // The dashboard overview charts the page views (initial + pushState = 2) and the one anonymous visitor.
    await dashboard.goto(`${dashboardUrl}${projectPath}`);
    await dashboard.getByRole("heading", { name: "Overview" }).waitFor();
    const views = dashboard.getByTestId("page-views");
    await views.waitFor();
    expect(Number(await views.getAttribute("data-total"))).toBe(2);
    expect(Number(await dashboard.getByTestId("analytics-active-users").getAttribute("data-total"))).toBe(1);
    await expect.poll(async () => (await dashboard.getByRole("img", { name: /^Page views per day: 2 in 30 days$/ }).count()), { timeout: 5_000 }).toBe(1);
    await screenshotBothThemes(dashboard, "dashboard-overview-analytics");

    // The project setting: analytics off in the settings area → the overview says so, the SDK's batches are refused.
    await dashboard.goto(`${dashboardUrl}${projectPath}/settings`);
    const toggle = dashboard.getByRole("switch", { name: "Analytics" });
    await toggle.waitFor();
    expect(await toggle.isChecked()).toBe(true);
    await toggle.click();
    await expect.poll(() => toggle.isChecked(), { timeout: 10_000 }).toBe(false);
    await dashboard.goto(`${dashboardUrl}${projectPath}`);
    await dashboard.getByTestId("analytics-off").waitFor();
    const off = await browser.newPage();
    const refused = watchGateway(off);
    await off.goto(sdkPage.url);
    for (let i = 0; i < 49; i++) await off.getByRole("button", { name: "Buy" }).click();
    await expect
      .poll(() => refused.exchanges.filter((e) => e.path === "/api/v1/analytics/events/batch").map((e) => `${e.actualStatus} ${e.knownError}`), { timeout: 20_000 })
      .toEqual(["400 ANALYTICS_NOT_ENABLED"]);
    await off.close();
    await dashboard.close();
  });
});
