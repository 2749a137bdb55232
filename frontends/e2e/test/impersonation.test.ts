/**
 * Issue 21, users-table depth: "Open the app as this user" lands in the app. A new owner's project serves its hosted
 * pages (`/handler/<project-id>/...`, no publishable key required) and trusts the frontends' origin with that handler
 * path; the users table's row action asks for a single-use ticket and opens the app's `impersonate` page in a new tab,
 * which signs in as the user and goes on to the app (the hosted pages' home: account settings). Opening the ticket's
 * address again says the link expired or was already used. Screenshots at desktop and phone width.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Page, Request } from "playwright-core";
import type { TestPlatform } from "../../../deploy/src/test-platform.ts";
import type { Browser } from "../src/browser.ts";
import { createKeysInDashboard, startBrowserPlatform, stopBrowserPlatform } from "../src/platform.ts";
import { shot, shotDialog } from "../src/screenshots.ts";
import { PASSWORD, ownerWithProject, run } from "../src/accounts.ts";

vi.setConfig({ testTimeout: 180_000 });

let tp: TestPlatform;
let browser: Browser;
let url: string;

beforeAll(async () => ({ tp, browser, url } = await startBrowserPlatform()), 300_000);
afterAll(() => stopBrowserPlatform({ tp, browser }));

describe("opening the app as a user from the users table", () => {
  let owner: Page;
  let projectPath = "";
  let projectId = "";
  const name = `Impersonated ${run}`;
  const email = `impersonated-${run}@example.com`;

  beforeAll(async () => {
    owner = await browser.newPage();
    projectPath = await ownerWithProject(owner, url, `imp-owner-${run}@example.com`, PASSWORD, `Impersonation ${run}`);
    const keys = await createKeysInDashboard(owner, url, projectPath);
    projectId = keys.projectId;
    const created = await fetch(`${tp.gatewayUrl}/api/v1/users`, {
      method: "POST",
      headers: { ...keys.server, "content-type": "application/json" },
      body: JSON.stringify({ primary_email: email, display_name: name }),
    });
    expect(created.status).toBe(201);

    // The project's hosted pages work without a publishable key once the owner stops requiring one.
    await owner.goto(`${url}${projectPath}/settings`);
    await owner.getByTestId("hosted-pages").getByRole("switch", { name: "Require a publishable client key" }).click();
    await owner.getByRole("dialog", { name: "Stop requiring a publishable client key?" }).getByRole("button", { name: "Stop requiring the key" }).click();
    await owner.getByTestId("hosted-pages").getByText("These pages are off").waitFor({ state: "detached" });

    // The app's address: the frontends' origin, whose handler pages for this project live at /handler/<project-id>.
    await owner.goto(`${url}${projectPath}/auth`);
    await owner.getByLabel("Domain", { exact: true }).fill(new URL(url).origin);
    await owner.getByLabel("Handler path").fill(`/handler/${projectId}`);
    await owner.getByRole("button", { name: "Add domain" }).click();
    await owner.getByRole("table", { name: "Trusted domains" }).getByRole("code").getByText(new URL(url).origin).waitFor();
  }, 240_000);

  it("opens a new tab on the app signed in as the user; the ticket's address does not work a second time", async () => {
    await owner.goto(`${url}${projectPath}/users`);
    await owner.getByRole("button", { name: `Actions for ${name}` }).click();
    const ticketUrls: string[] = [];
    const onRequest = (r: Request) => {
      if (r.isNavigationRequest() && r.url().includes("/impersonate?ticket=")) ticketUrls.push(r.url());
    };
    owner.context().on("request", onRequest);
    const [tab] = await Promise.all([
      owner.context().waitForEvent("page"),
      owner.getByRole("dialog", { name: `Actions for ${name}` }).getByRole("button", { name: "Open the app as this user" }).click(),
    ]);
    const dialog = owner.getByRole("dialog", { name: `Open the app as ${name}` });
    await dialog.getByText(`A new tab opens ${new URL(url).host} signed in as ${name}`).waitFor();

    // The tab lands on the app (the hosted pages' home) signed in as the user, without the ticket in its address.
    await tab.waitForURL(new RegExp(`/handler/${projectId}/account-settings`), { timeout: 30_000 });
    await tab.getByRole("heading", { name: "Account settings" }).waitFor();
    await tab.getByText(email).first().waitFor();
    expect(tab.url()).not.toContain("ticket=");
    owner.context().off("request", onRequest);
    expect(ticketUrls).toHaveLength(1);
    const ticketUrl = ticketUrls[0]!;
    expect(ticketUrl.startsWith(`${new URL(url).origin}/handler/${projectId}/impersonate?ticket=`)).toBe(true);
    await shot(tab, "impersonation-landed");

    // The fallback for apps without the handler pages stays one click away.
    await dialog.getByText("App without Vestibule's handler pages?").click();
    await dialog.getByRole("button", { name: "Make a console line" }).click();
    await expect(owner.getByTestId("copy-Impersonation snippet").textContent()).resolves.toContain(`stack-refresh-${projectId}=`);
    await shotDialog(owner, "impersonation-dialog");
    await dialog.getByRole("button", { name: "Done" }).click();

    // The same address again: the ticket was used.
    await tab.goto(ticketUrl);
    await tab.getByText("This link to open the app as a user has expired or was already used. Ask for a new one from the dashboard.").waitFor();
    expect(tab.url()).not.toContain("ticket=");
    await shot(tab, "impersonation-used-link");
  });
});
