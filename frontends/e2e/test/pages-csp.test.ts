/**
 * Issue 18, pages: the hosted pages, the dashboard (shell and its federated areas) and a host app loading the handler
 * remote work in Chromium under the frontends server's Content-Security-Policy (no inline or eval'd script except the
 * pages' own hashed theme script): real sign-up, sign-in and dashboard flows with no CSP violation reported by the
 * browser (`securitypolicyviolation` events and console messages) and no console error.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Page } from "playwright-core";
import type { TestPlatform } from "../../../deploy/src/test-platform.ts";
import type { Browser } from "../src/browser.ts";
import { run, PASSWORD } from "../src/accounts.ts";
import { startBrowserPlatform, stopBrowserPlatform } from "../src/platform.ts";

vi.setConfig({ testTimeout: 180_000 });

let tp: TestPlatform;
let browser: Browser;
let url: string;
/** CSP violations seen by any page: `<page url>: <directive> <blocked URI>` or the console's report. */
const violations: string[] = [];
/** Console errors before the flows (the first test's deliberate violation is one). */
let errorsBefore = 0;

beforeAll(async () => ({ tp, browser, url } = await startBrowserPlatform()), 600_000);

afterAll(() => stopBrowserPlatform({ tp, browser }));

/** A page in a fresh context that records CSP violations (before any of the page's own scripts run). */
async function watchedPage(): Promise<Page> {
  const page = await browser.newPage();
  await page.exposeFunction("__reportCspViolation", (v: string) => void violations.push(`${page.url()}: ${v}`));
  await page.addInitScript(
    `document.addEventListener("securitypolicyviolation", (e) => globalThis.__reportCspViolation(e.violatedDirective + " " + e.blockedURI + " " + (e.sourceFile || "") + ":" + e.lineNumber));`,
  );
  page.on("console", (m) => {
    if (/content security policy/i.test(m.text())) violations.push(`${page.url()}: ${m.text()}`);
  });
  return page;
}

/** Opens `path`, checks the page's CSP header is the strict one, and gives the page. */
async function open(page: Page, path: string): Promise<void> {
  const res = await page.goto(`${url}${path}`);
  const csp = res?.headers()["content-security-policy"] ?? "";
  const scriptSrc = csp.split(";").map((d) => d.trim()).find((d) => d.startsWith("script-src "));
  expect(scriptSrc).toMatch(/^script-src 'self'( 'sha256-[A-Za-z0-9+/=]+')*$/);
  expect(csp).toContain("frame-ancestors 'none'");
  expect(res?.headers()["x-content-type-options"]).toBe("nosniff");
}

describe("pages under the CSP", () => {
  it("the watch sees a violation: a script injected inline into a page is blocked and reported", async () => {
    const page = await watchedPage();
    await open(page, "/handler/sign-in");
    await page.getByLabel("E-mail", { exact: true }).waitFor();
    await page.evaluate(`(() => { const s = document.createElement("script"); s.textContent = "globalThis.__injected = 1"; document.head.append(s); })()`);
    await expect.poll(() => violations.length).toBeGreaterThan(0);
    expect(await page.evaluate("globalThis.__injected")).toBeUndefined();
    expect(violations.join("\n")).toMatch(/script-src/);
    violations.length = 0;
    await page.close();
    errorsBefore = browser.errors.length;
  });

  it("hosted pages: a visitor signs up, signs out and signs in again", async () => {
    const email = `csp-${run}@example.com`;
    const page = await watchedPage();
    await open(page, "/handler/sign-up");
    await page.getByLabel("E-mail", { exact: true }).fill(email);
    await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
    await page.getByLabel("Repeat password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign up" }).click();
    await page.waitForURL(/\/handler\/account-settings/);
    await page.getByRole("heading", { name: "Account settings" }).waitFor();
    // Leave the page first: signed out under it, account settings would redirect to sign-in itself, racing the goto.
    await page.goto("about:blank");
    await page.context().clearCookies();
    await open(page, "/handler/sign-in");
    await page.getByLabel("E-mail", { exact: true }).fill(email);
    await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    // Signed in, the page leaves sign-in through a redirect or two (polled: waitForURL can see a navigation aborted
    // by the next one, net::ERR_ABORTED).
    await expect.poll(() => new URL(page.url()).pathname.endsWith("/sign-in"), { timeout: 20_000 }).toBe(false);
    await page.close();
    expect(violations).toEqual([]);
  });

  it("dashboard: an owner signs up, creates a project and opens every area (federated remotes)", async () => {
    const page = await watchedPage();
    await open(page, "/auth/sign-up");
    await page.getByLabel("E-mail", { exact: true }).fill(`csp-owner-${run}@example.com`);
    await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
    await page.getByLabel("Repeat password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign up" }).click();
    await page.getByRole("heading", { name: "Projects" }).waitFor();
    await page.getByLabel("Project name").fill(`CSP ${run}`);
    await page.getByRole("button", { name: "Create project" }).click();
    await page.waitForURL(/\/projects\/[0-9a-f-]{36}$/);
    await page.getByRole("heading", { name: "Overview" }).waitFor();
    const projectPath = new URL(page.url()).pathname;
    for (const area of ["keys", "users", "teams", "auth", "emails", "settings"]) {
      await open(page, `${projectPath}/${area}`);
      await page.locator("h1").first().waitFor();
    }
    await page.close();
    expect(violations).toEqual([]);
  });

  it("a host app (example) loads the handler remote and signs in through it", async () => {
    const email = `csp-example-${run}@example.com`;
    const demo = tp.projects.demo;
    const created = await fetch(`${tp.gatewayUrl}/api/v1/users`, {
      method: "POST",
      headers: {
        "x-stack-project-id": demo.project_id,
        "x-stack-access-type": "server",
        "x-stack-secret-server-key": demo.secret_server_key,
        "content-type": "application/json",
      },
      body: JSON.stringify({ primary_email: email, password: PASSWORD, primary_email_auth_enabled: true }),
    });
    expect(created.status).toBe(201);
    const page = await watchedPage();
    await open(page, "/example/");
    await page.getByRole("heading", { name: "Example app" }).waitFor();
    await page.getByRole("link", { name: "Sign in" }).click();
    await page.waitForURL(/\/example\/handler\/sign-in$/);
    await page.getByLabel("E-mail", { exact: true }).fill(email);
    await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.waitForURL(/\/example\/$/);
    await expect(page.getByTestId("example-signed-in").textContent()).resolves.toBe(`Signed in as ${email}`);
    await page.close();
    expect(violations).toEqual([]);
    expect(browser.errors.slice(errorsBefore)).toEqual([]);
  });
});
