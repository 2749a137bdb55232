/**
 * OAuth end to end in Chromium (issue 14): a visitor on the hosted sign-in page clicks "Continue with Google", picks a
 * test identity on the development identity provider's page (standing in for Google through the shared keys, as in
 * `npm start`), lands signed in, and finds the linked account in account settings, where it can be disconnected.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startTestPlatform, type TestPlatform } from "../../../deploy/src/test-platform.ts";
import { startDevIdentityProvider, type DevIdentityProvider } from "../../../deploy/src/dev-idp/index.ts";
import { launchBrowser, screenshotBothThemes, type Browser } from "../src/browser.ts";

vi.setConfig({ testTimeout: 150_000 });

let idp: DevIdentityProvider;
let tp: TestPlatform;
let browser: Browser;
let url: string;

async function admin(path: string, method: string, body?: unknown): Promise<Record<string, any>> {
  const demo = tp.projects.demo;
  const res = await fetch(`${tp.gatewayUrl}/api/v1${path}`, {
    method,
    headers: {
      "x-stack-project-id": demo.project_id,
      "x-stack-access-type": "admin",
      "x-stack-super-secret-admin-key": demo.super_secret_admin_key,
      ...(body ? { "content-type": "application/json" } : {}),
    },
    body: body ? JSON.stringify(body) : undefined,
  });
  if (!res.ok) throw new Error(`${path} answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as Record<string, any>;
}

beforeAll(async () => {
  idp = await startDevIdentityProvider();
  tp = await startTestPlatform({ platform: { frontends: true, env: { VESTIBULE_OAUTH_SHARED_KEYS: idp.sharedKeysEnv } } });
  url = tp.platform.frontendsUrl!;
  await admin("/internal/projects/current", "PATCH", { config: { oauth_providers: [{ id: "google", type: "shared" }, { id: "github", type: "shared" }] } });
  browser = await launchBrowser();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await tp?.stop();
  await idp?.stop();
});

describe("OAuth on the hosted pages", () => {
  it("a visitor signs in with Google through the development provider and sees the linked account", async () => {
    const page = await browser.newPage();
    await page.goto(`${url}/handler/sign-in`);
    const google = page.getByRole("button", { name: "Continue with Google" });
    // The project's config reaches the page through the gateway's cache (dropped by the update's event).
    for (let i = 0; i < 20 && !(await google.isVisible()); i++) {
      await page.waitForTimeout(500);
      await page.reload();
    }
    await screenshotBothThemes(page, "handler-sign-in-oauth");
    await google.click();
    await page.waitForURL((u) => u.href.startsWith(idp.issuer));
    await page.getByRole("heading", { name: "Development identity provider" }).waitFor();
    await screenshotBothThemes(page, "dev-idp-login");
    await page.getByRole("button", { name: /Ada Lovelace/ }).click();
    // Back through the callback page to the app, signed in.
    await page.waitForURL((u) => u.href.startsWith(url) && !u.pathname.includes("oauth-callback") && !u.pathname.includes("sign-in"), { timeout: 30_000 });
    const users = await admin(`/users?query=${encodeURIComponent("ada@example.com")}`, "GET");
    const ada = users.items.find((u: { primary_email: string }) => u.primary_email === "ada@example.com");
    expect(ada).toMatchObject({ display_name: "Ada Lovelace", primary_email_verified: true, oauth_providers: [{ id: "google", account_id: idp.accountIdOf("ada@example.com") }] });

    await page.goto(`${url}/handler/account-settings?tab=linked-accounts`);
    const table = page.getByRole("table", { name: "Accounts at other providers you can sign in with" });
    await table.getByText("ada@example.com").waitFor();
    await table.getByRole("cell", { name: "Google", exact: true }).waitFor();
    await screenshotBothThemes(page, "handler-account-settings-linked-accounts");

    // Connect a second provider through the link flow; it comes back to account settings.
    await page.getByRole("button", { name: "Connect GitHub" }).click();
    await page.waitForURL((u) => u.href.startsWith(idp.issuer));
    await page.getByRole("button", { name: /Grace Hopper/ }).click();
    await page.waitForURL((u) => u.href.startsWith(url) && u.pathname.includes("account-settings"), { timeout: 30_000 });
    if (!page.url().includes("tab=linked-accounts")) await page.goto(`${url}/handler/account-settings?tab=linked-accounts`);
    await table.getByText("grace@example.com").waitFor();
    const linked = await admin(`/oauth-providers?user_id=${ada.id}`, "GET");
    expect(linked.items.map((l: { type: string; email: string }) => [l.type, l.email]).sort()).toEqual([
      ["github", "grace@example.com"],
      ["google", "ada@example.com"],
    ]);

    // Disconnect GitHub again.
    await page.getByRole("button", { name: "Disconnect GitHub" }).click();
    await table.getByText("grace@example.com").waitFor({ state: "detached" });
    expect((await admin(`/oauth-providers?user_id=${ada.id}`, "GET")).items).toHaveLength(1);
    expect(browser.errors.filter((e) => !/oauth-callback/.test(e))).toEqual([]);
  });
});
