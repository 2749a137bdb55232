/**
 * Issue 21, depth: the dashboard's users area and the API keys' `.env` lines in Chromium against the whole platform.
 * A new owner creates keys (and reads the `.env` lines for their framework), sorts and filters the users table, and
 * acts on users from it: opens the app as a user (an impersonation session whose token signs a client in as them),
 * marks an e-mail verified, restricts and lifts a restriction, deletes a user after a confirmation naming them. The
 * user detail lists sessions (revoked after a confirmation), contact channels, teams and the two-factor state. Every
 * result is read back through the API; failures (a user or session removed behind the page's back) show a sentence,
 * never the API's text. Screenshots at desktop and phone width in both themes go to frontends/e2e/artifacts/.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Page } from "playwright-core";
import type { TestPlatform } from "../../../deploy/src/test-platform.ts";
import type { Browser } from "../src/browser.ts";
import { startBrowserPlatform, stopBrowserPlatform } from "../src/platform.ts";
import { shot, shotDialog } from "../src/screenshots.ts";
import { PASSWORD, ownerWithProject, run } from "../src/accounts.ts";

vi.setConfig({ testTimeout: 180_000 });

/** What the API's own texts for these failures look like: none may reach the page. */
const RAW_API_TEXT = /Session not found|User [0-9a-f-]{36}|Request validation|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}/;

let tp: TestPlatform;
let browser: Browser;
let url: string;

beforeAll(async () => ({ tp, browser, url } = await startBrowserPlatform()), 300_000);

afterAll(() => stopBrowserPlatform({ tp, browser }));

describe("dashboard: users and API keys", () => {
  let page: Page;
  let projectPath = "";
  let projectId = "";
  let publishable = "";
  let server: (path: string, method?: string, body?: unknown) => Promise<{ status: number; json: any }>;
  const alice = `alice-${run}@example.com`;
  const bob = `bob-${run}@example.com`;
  const carol = `carol-${run}@example.com`;
  const dave = `dave-${run}@example.com`;
  const ids: Record<string, string> = {};
  const table = () => page.getByRole("table", { name: "Users" });
  /** The e-mails of the table's rows, top to bottom. */
  const shownEmails = async () => {
    await page.getByText("Loading…").waitFor({ state: "detached" });
    const cells = await table().locator("tbody tr td:nth-child(2)").allTextContents();
    return cells.map((c) => c.trim());
  };

  beforeAll(async () => {
    page = await browser.newPage();
    projectPath = await ownerWithProject(page, url, `users-owner-${run}@example.com`, PASSWORD, `Users ${run}`);
    projectId = projectPath.split("/")[2]!;
  }, 180_000);

  it("shows the new keys as .env lines for the app's framework", async () => {
    await page.goto(`${url}${projectPath}/keys`);
    await page.getByLabel("Description").fill("e2e");
    await page.getByRole("button", { name: "Create keys" }).click();
    const secret = (await page.getByTestId("copy-Secret server key").textContent())!.trim();
    publishable = (await page.getByTestId("copy-Publishable client key").textContent())!.trim();
    const env = page.getByTestId("copy-.env file");
    await expect.poll(() => env.textContent()).toContain(`NEXT_PUBLIC_STACK_API_URL=http`);
    const next = (await env.textContent())!;
    expect(next).toContain(`NEXT_PUBLIC_STACK_PROJECT_ID=${projectId}\n`);
    expect(next).toContain(`NEXT_PUBLIC_STACK_PUBLISHABLE_CLIENT_KEY=${publishable}\n`);
    expect(next).toContain(`STACK_SECRET_SERVER_KEY=${secret}\n`);
    // The URL is the API's: the SDK reaches the gateway there.
    const apiUrl = /NEXT_PUBLIC_STACK_API_URL=(\S+)/.exec(next)![1]!;
    expect((await fetch(`${apiUrl}/api/v1`)).status).toBeLessThan(500);
    await shot(page, "keys-env-nextjs");
    await page.getByLabel("Your app's framework").selectOption("node");
    await expect(env.textContent()).resolves.toContain(`STACK_PROJECT_ID=${projectId}\n`);
    await expect(env.textContent()).resolves.not.toContain("NEXT_PUBLIC_");
    await page.getByLabel("Your app's framework").selectOption("vite");
    await expect(env.textContent()).resolves.not.toContain(secret);
    await page.getByRole("button", { name: "I have copied them" }).click();

    server = async (path, method = "GET", body) => {
      const res = await fetch(`${tp.gatewayUrl}/api/v1${path}`, {
        method,
        headers: {
          "x-stack-project-id": projectId,
          "x-stack-access-type": "server",
          "x-stack-secret-server-key": secret,
          ...(body !== undefined ? { "content-type": "application/json" } : {}),
        },
        body: body !== undefined ? JSON.stringify(body) : undefined,
      });
      return { status: res.status, json: await res.json().catch(() => null) };
    };
    // Four users in sign-up order, one anonymous, one restricted by an administrator.
    const extra: Record<string, Record<string, unknown>> = { bob: { password: PASSWORD }, dave: { primary_email_verified: true } };
    for (const [name, email] of [["alice", alice], ["bob", bob], ["carol", carol], ["dave", dave]] as const) {
      const created = await server("/users", "POST", { primary_email: email, ...extra[name] });
      expect(created.status).toBe(201);
      ids[name] = created.json.id;
    }
    const anonymous = await server("/users", "POST", { is_anonymous: true, display_name: `Anon ${run}` });
    expect(anonymous.status).toBe(201);
    ids.anonymous = anonymous.json.id;
    expect((await server(`/users/${ids.carol}`, "PATCH", { restricted_by_admin: true })).status).toBe(200);
  });

  it("sorts the users table and filters it by restriction and anonymity", async () => {
    await page.goto(`${url}${projectPath}/users`);
    await expect.poll(shownEmails).toEqual([dave, carol, bob, alice]);
    await table().locator(".vs-badge", { hasText: "Restricted" }).waitFor();
    await shot(page, "users-table");
    await page.getByLabel("Sort by").selectOption({ label: "Oldest sign-ups first" });
    await expect.poll(shownEmails).toEqual([alice, bob, carol, dave]);
    await page.getByLabel("Show").selectOption({ label: "Unrestricted users only" });
    await expect.poll(shownEmails).toEqual([alice, bob, dave]);
    await page.getByLabel("Show").selectOption({ label: "Restricted users only" });
    await expect.poll(shownEmails).toEqual([carol]);
    await page.getByLabel("Show").selectOption({ label: "All users (restricted included)" });
    // The endpoint filters (GET /users?email_verified, has_mfa, auth_method, signed_up_*_millis), not the page.
    await page.getByLabel("E-mail", { exact: true }).selectOption({ label: "Verified" });
    await expect.poll(shownEmails).toEqual([dave]);
    await page.getByLabel("E-mail", { exact: true }).selectOption({ label: "Not verified" });
    await page.getByLabel("Sign-in method").selectOption({ label: "Password" });
    await expect.poll(shownEmails).toEqual([bob]);
    await page.getByLabel("Two-factor").selectOption({ label: "On" });
    await table().getByText("No user matches these filters.").waitFor();
    await page.getByRole("button", { name: "Clear filters" }).click();
    await expect.poll(shownEmails).toEqual([alice, bob, carol, dave]);
    await page.getByLabel("Signed up from").fill("2099-01-02");
    await table().getByText("No user matches these filters.").waitFor();
    await page.getByLabel("Signed up until").fill("2099-01-01");
    await page.getByText("The end date is before the start date.").waitFor();
    await shot(page, "users-table-date-filter");
    await page.getByRole("button", { name: "Clear filters" }).click();
    await page.getByLabel("Show").selectOption({ label: "Unrestricted users only" });
    await expect.poll(shownEmails).toEqual([alice, bob, dave]);
    await page.getByLabel("Show").selectOption({ label: "Anonymous users only" });
    await table().getByRole("link", { name: `Anon ${run}` }).waitFor();
    await expect.poll(async () => (await shownEmails()).length).toBe(1);
    await page.getByLabel("Sort by").selectOption({ label: "Recently active first" });
    await table().getByRole("columnheader", { name: "Last active" }).waitFor();
    await table().getByRole("link", { name: `Anon ${run}` }).waitFor();
    await page.getByLabel("Show").selectOption({ label: "All users (restricted included)" });
    await expect.poll(async () => (await shownEmails()).sort()).toEqual([alice, bob, carol, dave].sort());
    await shot(page, "users-table-filtered");
  });

  it("marks an e-mail verified from the table", async () => {
    await page.getByRole("button", { name: `Actions for ${alice}` }).click();
    const dialog = page.getByRole("dialog", { name: `Actions for ${alice}` });
    await dialog.waitFor();
    await shotDialog(page, "users-row-actions");
    await dialog.getByRole("button", { name: "Mark e-mail as verified" }).click();
    await dialog.waitFor({ state: "hidden" });
    await expect.poll(async () => (await server(`/users/${ids.alice}`)).json.primary_email_verified).toBe(true);
    // The row shows it (the page reloads in place).
    await page.getByRole("button", { name: `Actions for ${alice}` }).click();
    await dialog.getByRole("button", { name: "Close" }).waitFor();
    await dialog.getByRole("button", { name: "Mark e-mail as verified" }).waitFor({ state: "detached" });
    await dialog.getByRole("button", { name: "Close" }).click();
  });

  it("restricts a user with a reason and lifts the restriction", async () => {
    await page.getByRole("button", { name: `Actions for ${bob}` }).click();
    await page.getByRole("dialog", { name: `Actions for ${bob}` }).getByRole("button", { name: "Restrict" }).click();
    const confirm = page.getByRole("dialog", { name: `Restrict ${bob}?` });
    await confirm.getByLabel("Reason (shown to the user)").fill("Payment overdue");
    await shotDialog(page, "users-restrict-confirm");
    await confirm.getByRole("button", { name: "Restrict user" }).click();
    await confirm.waitFor({ state: "hidden" });
    await expect.poll(async () => (await server(`/users/${ids.bob}`)).json.restricted_by_admin_reason).toBe("Payment overdue");
    await page.getByRole("button", { name: `Actions for ${bob}` }).click();
    const actions = page.getByRole("dialog", { name: `Actions for ${bob}` });
    await actions.getByRole("button", { name: "Lift restriction" }).click();
    await actions.waitFor({ state: "hidden" });
    await expect.poll(async () => (await server(`/users/${ids.bob}`)).json.restricted_by_admin).toBe(false);
  });

  it("opens the app as a user: an impersonation session whose token signs a client in as them", async () => {
    await page.getByRole("button", { name: `Actions for ${alice}` }).click();
    await page.getByRole("dialog", { name: `Actions for ${alice}` }).getByRole("button", { name: "Open the app as this user" }).click();
    const dialog = page.getByRole("dialog", { name: `Open the app as ${alice}` });
    await dialog.waitFor();
    const line = (await page.getByTestId("copy-Impersonation snippet").textContent())!;
    const token = decodeURIComponent(new RegExp(`stack-refresh-${projectId}=([^;]+);`).exec(line)![1]!);
    // Without a trusted domain the dashboard says where to add one.
    await dialog.getByRole("link", { name: "add a trusted domain" }).waitFor();
    await shotDialog(page, "users-impersonate");
    const client = { "x-stack-project-id": projectId, "x-stack-access-type": "client", "x-stack-publishable-client-key": publishable };
    const refreshed = await fetch(`${tp.gatewayUrl}/api/v1/auth/sessions/current/refresh`, { method: "POST", headers: { ...client, "x-stack-refresh-token": token, "content-type": "application/json" }, body: "{}" });
    expect(refreshed.status).toBe(200);
    const { access_token } = (await refreshed.json()) as { access_token: string };
    const me = await fetch(`${tp.gatewayUrl}/api/v1/users/me`, { headers: { ...client, "x-stack-access-token": access_token } });
    expect(((await me.json()) as { id: string }).id).toBe(ids.alice);
    await dialog.getByRole("button", { name: "Done" }).click();
  });

  it("deletes a user after a confirmation naming them; Cancel keeps them", async () => {
    await page.getByRole("button", { name: `Actions for ${dave}` }).click();
    await page.getByRole("dialog", { name: `Actions for ${dave}` }).getByRole("button", { name: "Delete user" }).click();
    const confirm = page.getByRole("dialog", { name: `Delete ${dave}?` });
    await expect(confirm.textContent()).resolves.toContain("This cannot be undone.");
    await shotDialog(page, "users-delete-confirm");
    await confirm.getByRole("button", { name: "Cancel" }).click();
    await page.getByRole("dialog", { name: `Actions for ${dave}` }).getByRole("button", { name: "Close" }).click();
    expect((await server(`/users/${ids.dave}`)).status).toBe(200);
    await page.getByRole("button", { name: `Actions for ${dave}` }).click();
    await page.getByRole("dialog", { name: `Actions for ${dave}` }).getByRole("button", { name: "Delete user" }).click();
    await confirm.getByRole("button", { name: "Delete user" }).click();
    await page.getByRole("button", { name: `Actions for ${dave}` }).waitFor({ state: "detached" });
    const gone = await server(`/users/${ids.dave}`);
    expect(gone.status).toBe(404);
    expect(gone.json.code).toBe("USER_NOT_FOUND");
  });

  it("says in a sentence that a user deleted meanwhile does not exist", async () => {
    expect((await server(`/users/${ids.carol}`, "DELETE", {})).status).toBe(200);
    await page.getByRole("button", { name: `Actions for ${carol}` }).click();
    await page.getByRole("dialog", { name: `Actions for ${carol}` }).getByRole("button", { name: "Delete user" }).click();
    const confirm = page.getByRole("dialog", { name: `Delete ${carol}?` });
    await confirm.getByRole("button", { name: "Delete user" }).click();
    await confirm.getByText("This user does not exist (it may have been deleted).", { exact: true }).waitFor();
    expect(await page.locator(".vs-alert").allTextContents()).not.toContainEqual(expect.stringMatching(RAW_API_TEXT));
    await shotDialog(page, "users-delete-failed");
    await confirm.getByRole("button", { name: "Cancel" }).click();
    await page.getByRole("dialog", { name: `Actions for ${carol}` }).getByRole("button", { name: "Close" }).click();
    // Closing catches the table up with what happened elsewhere.
    await page.getByRole("button", { name: `Actions for ${carol}` }).waitFor({ state: "detached" });
  });

  it("shows a user's sessions, contact channels, teams and two-factor state; revokes a session after a confirmation", async () => {
    const sessions: string[] = [];
    for (let i = 0; i < 2; i++) expect((await server("/auth/sessions", "POST", { user_id: ids.alice })).status).toBe(200);
    for (const s of (await server(`/auth/sessions?user_id=${ids.alice}`)).json.items as { id: string }[]) sessions.push(s.id);
    expect(sessions.length).toBeGreaterThanOrEqual(2);
    expect((await server("/teams", "POST", { display_name: `Ops ${run}`, creator_user_id: ids.alice })).status).toBe(201);
    expect((await server(`/users/${ids.alice}`, "PATCH", { totp_secret_base64: Buffer.from("12345678901234567890").toString("base64") })).status).toBe(200);
    // Those changes were made behind the page's back: its SDK may hold alice from an earlier visit. A reload drops it
    // (the SDK's cache lives in the page), as an owner who changed a user elsewhere would reload.
    await page.reload();
    await page.getByRole("link", { name: alice }).click();
    await page.getByRole("heading", { name: alice, level: 1 }).waitFor();
    await expect(page.getByTestId("mfa-state").textContent()).resolves.toMatch(/^On/);
    const channels = page.getByRole("table", { name: "Contact channels" });
    await channels.getByText(alice).waitFor();
    await expect(channels.locator("tbody tr").first().textContent()).resolves.toContain("Yes");
    await page.getByRole("table", { name: "Teams of the user" }).getByRole("link", { name: `Ops ${run}` }).waitFor();
    await page.getByTestId("passkey-count").getByText("None").waitFor();
    const sessionRows = page.getByRole("table", { name: "Sessions" }).locator("tbody tr");
    // The SDK lists a user's sessions with server access, which leaves impersonation sessions out (as the API does).
    await expect.poll(() => sessionRows.count()).toBe(sessions.length);
    await shot(page, "users-detail");

    await sessionRows.first().getByRole("button", { name: /^Revoke/ }).click();
    const confirm = page.getByRole("dialog", { name: "Revoke this session?" });
    await confirm.waitFor();
    await shotDialog(page, "users-revoke-session-confirm");
    await confirm.getByRole("button", { name: "Cancel" }).click();
    expect((await server(`/auth/sessions?user_id=${ids.alice}`)).json.items).toHaveLength(sessions.length);
    await sessionRows.first().getByRole("button", { name: /^Revoke/ }).click();
    await confirm.getByRole("button", { name: "Revoke session" }).click();
    await expect.poll(() => sessionRows.count()).toBe(sessions.length - 1);
    expect((await server(`/auth/sessions?user_id=${ids.alice}`)).json.items).toHaveLength(sessions.length - 1);
  });

  it("says in a sentence that a session revoked meanwhile has ended", async () => {
    const left = (await server(`/auth/sessions?user_id=${ids.alice}`)).json.items as { id: string }[];
    // Revoked elsewhere, still listed on the page.
    expect((await server(`/auth/sessions/${left[0]!.id}?user_id=${ids.alice}`, "DELETE")).status).toBe(200);
    const sessionRows = page.getByRole("table", { name: "Sessions" }).locator("tbody tr");
    expect(left).toHaveLength(1);
    await expect.poll(() => sessionRows.count()).toBe(1);
    await sessionRows.first().getByRole("button", { name: /^Revoke/ }).click();
    await page.getByRole("dialog", { name: "Revoke this session?" }).getByRole("button", { name: "Revoke session" }).click();
    await page.getByText("This session has already ended (it was revoked or has expired).", { exact: true }).waitFor();
    // The list catches up with what happened elsewhere.
    await page.getByRole("table", { name: "Sessions" }).getByText("No active sessions.").waitFor();
    expect(await page.locator(".vs-alert").allTextContents()).not.toContainEqual(expect.stringMatching(RAW_API_TEXT));
    await shot(page, "users-revoke-session-failed");
  });
});
