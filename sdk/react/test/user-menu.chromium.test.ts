/**
 * The user menu and the hooks in a real Chromium, against a real gateway (identity, auth and e-mail services in this
 * process, real PostgreSQL): loading, signed out, signed in with an image, signed in with initials, demo mode; the
 * keyboard and pointer behaviour of the dropdown with the spec's timings (Playwright's clock). Screenshots go to
 * test-results/sdk/ (git-ignored).
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
/** A small round portrait as an SVG data URL (a client may only set data-URL images; the server sets this one). */
const PROFILE_IMAGE =
  "data:image/svg+xml;base64," +
  Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64" viewBox="0 0 64 64"><defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#f97316"/><stop offset="1" stop-color="#db2777"/></linearGradient></defs><rect width="64" height="64" fill="url(#g)"/><circle cx="32" cy="25" r="11" fill="#fde68a"/><path d="M12 60c2-14 12-20 20-20s18 6 20 20z" fill="#fde68a"/></svg>`,
  ).toString("base64");

let stack: Stack;
let server: TestPageServer;
let context: BrowserContext;
let profileDir: string;
const sessions: Record<"image" | "initials", { refreshToken: string }> = {} as never;

async function serverUser(displayName: string, profileImageUrl: string | null) {
  const email = `menu-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const created = await call(stack, "POST", "/api/v1/users", { headers: headersFor(stack.demo, "server"), body: { primary_email: email, display_name: displayName, profile_image_url: profileImageUrl } });
  expect(created.status).toBe(201);
  const session = await call(stack, "POST", "/api/v1/auth/sessions", { headers: headersFor(stack.demo, "server"), body: { user_id: created.json.id } });
  expect(session.status).toBe(200);
  return { refreshToken: session.json.refresh_token as string };
}

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  stack = await startStack({ auth: true });
  sessions.image = await serverUser("Grace Hopper", PROFILE_IMAGE);
  sessions.initials = await serverUser("Ada Lovelace", null);
  server = await serveTestPage();
  profileDir = mkdtempSync(join(tmpdir(), "chromium-profile-"));
  context = await chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 600, height: 360 },
    // Ports are random; Chromium refuses some ("unsafe") ones unless allowed explicitly.
    args: [`--explicitly-allowed-ports=${new URL(stack.url).port},${new URL(server.url).port}`, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
}, 180_000);

afterAll(async () => {
  await context?.close();
  await server?.close();
  await stack?.stop();
  if (profileDir) rmSync(profileDir, { recursive: true, force: true });
});

function pageUrl(scenario: string): string {
  const q = new URLSearchParams({ scenario, api: stack.url, project: stack.demo.projectId, key: stack.demo.publishableClientKey });
  return `${server.url}/?${q}`;
}

async function openPage(scenario: string, refreshToken?: string, options: { clock?: boolean } = {}): Promise<Page> {
  await context.clearCookies();
  if (refreshToken) {
    await context.addCookies([{ name: `stack-refresh-${stack.demo.projectId}`, value: refreshToken, url: server.url }]);
  }
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  if (process.env.VST_DEBUG) page.on("console", (m) => console.log(`[page] ${m.text()}`));
  (page as unknown as { vstErrors: string[] }).vstErrors = errors;
  if (options.clock) await page.clock.install();
  await page.goto(pageUrl(scenario));
  return page;
}

const shot = (page: Page, name: string) => page.screenshot({ path: join(ARTIFACTS, `${name}.png`), animations: "disabled" });
const trigger = (page: Page) => page.locator(".vst-trigger");
const menuItems = (page: Page) => page.locator(".vst-user-button > .vst-menu > .vst-item-wrap > [role=menuitem]");
const focusedText = (page: Page) => page.evaluate(() => document.activeElement?.textContent ?? "");

describe("user menu in Chromium", () => {
  it("loading: a round 34px skeleton", async () => {
    const page = await openPage("loading", "a-refresh-token-whose-refresh-never-answers");
    const skeleton = page.getByRole("status", { name: "Loading user" });
    await skeleton.waitFor();
    await expect.poll(async () => { const b = await skeleton.boundingBox(); return b && [b.width, b.height]; }).toEqual([34, 34]);
    expect(await skeleton.evaluate((el) => getComputedStyle(el).borderRadius)).toBe("50%");
    expect(await skeleton.evaluate((el) => getComputedStyle(el).backgroundColor)).toBe("rgb(209, 213, 219)");
    await shot(page, "1-loading");
    await page.close();
  });

  it("signed out: generic icon, 'Not signed in', Sign in and Sign up redirecting to the handler pages", async () => {
    const page = await openPage("live");
    await page.getByTestId("probe").filter({ hasText: "signed out" }).waitFor();
    expect(await page.getByTestId("probe").textContent()).toBe("signed out · project Demo Project");
    const avatar = page.locator(".vst-avatar");
    expect(await avatar.getAttribute("data-avatar")).toBe("icon");
    const icon = await avatar.locator("svg").boundingBox();
    expect(icon!.width).toBeCloseTo(34 * 0.6, 1);
    await shot(page, "2-signed-out");
    await trigger(page).click();
    await expect.poll(() => page.locator(".vst-menu-label").textContent()).toBe("Not signed in");
    expect(await menuItems(page).allTextContents()).toEqual(["Sign in", "Sign up"]);
    await shot(page, "2-signed-out-open");
    await menuItems(page).filter({ hasText: "Sign up" }).click();
    await page.getByTestId("handler").waitFor();
    const url = new URL(page.url());
    expect(url.pathname).toBe("/handler/sign-up");
    expect(url.searchParams.get("after_auth_return_to")).toMatch(/^\/\?scenario=live/);
    expect((page as unknown as { vstErrors: string[] }).vstErrors).toEqual([]);
    await page.close();
  });

  it("signed in with an image: the profile image in a circle, name and e-mail in the menu", async () => {
    const page = await openPage("live", sessions.image.refreshToken);
    await page.getByTestId("probe").filter({ hasText: "signed in as Grace Hopper" }).waitFor();
    const img = page.locator(".vst-avatar img");
    await expect.poll(() => img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth > 0)).toBe(true);
    expect(await page.locator(".vst-avatar").getAttribute("data-avatar")).toBe("image");
    const box = await page.locator(".vst-avatar").boundingBox();
    expect([box!.width, box!.height]).toEqual([34, 34]);
    await shot(page, "3-signed-in-image");
    await trigger(page).click();
    await expect.poll(() => menuItems(page).allTextContents()).toEqual(["Account settings", "Slow action", "Language›", "Toggle theme", "Sign out"]);
    expect(await page.locator(".vst-menu-label").textContent()).toContain("Grace Hopper");
    await shot(page, "3-signed-in-image-open");
    await page.close();
  });

  it("signed in with initials: the first two letters of the name, 0.4 of the size", async () => {
    const page = await openPage("live", sessions.initials.refreshToken);
    await page.getByTestId("probe").filter({ hasText: "signed in as Ada Lovelace" }).waitFor();
    const avatar = page.locator(".vst-avatar");
    expect(await avatar.getAttribute("data-avatar")).toBe("initials");
    expect(await avatar.textContent()).toBe("AD");
    expect(parseFloat(await avatar.evaluate((el) => getComputedStyle(el).fontSize))).toBeCloseTo(34 * 0.4, 5);
    await shot(page, "4-signed-in-initials");
    await trigger(page).click();
    await menuItems(page).first().waitFor();
    await shot(page, "4-signed-in-initials-open");
    await page.close();
  });

  it("is usable by keyboard: menu button, arrows, Home/End, type-ahead, Escape back to the button", async () => {
    const page = await openPage("live", sessions.initials.refreshToken);
    await page.getByTestId("probe").filter({ hasText: "signed in" }).waitFor();
    await trigger(page).focus();
    expect(await trigger(page).getAttribute("aria-haspopup")).toBe("menu");
    await page.keyboard.press("Enter");
    expect(await trigger(page).getAttribute("aria-expanded")).toBe("true");
    await expect.poll(() => focusedText(page)).toBe("Account settings");
    await page.keyboard.press("ArrowDown");
    await expect.poll(() => focusedText(page)).toBe("Slow action");
    await page.keyboard.press("ArrowUp");
    await page.keyboard.press("ArrowUp");
    await expect.poll(() => focusedText(page)).toBe("Sign out"); // wraps
    await page.keyboard.press("Home");
    await expect.poll(() => focusedText(page)).toBe("Account settings");
    await page.keyboard.type("t");
    await expect.poll(() => focusedText(page)).toBe("Toggle theme");
    await page.keyboard.press("ArrowUp"); // "Language"
    await page.keyboard.press("ArrowRight");
    await expect.poll(() => focusedText(page)).toBe("English");
    await page.keyboard.press("ArrowDown");
    await expect.poll(() => focusedText(page)).toBe("Deutsch");
    await shot(page, "5-keyboard-submenu");
    await page.keyboard.press("ArrowLeft");
    await expect.poll(() => focusedText(page)).toBe("Language›");
    await page.keyboard.press("Escape");
    expect(await page.locator(".vst-menu").count()).toBe(0);
    expect(await page.evaluate(() => document.activeElement?.classList.contains("vst-trigger"))).toBe(true);
    await page.keyboard.press("ArrowUp");
    await expect.poll(() => focusedText(page)).toBe("Sign out");
    await page.keyboard.press("Tab");
    expect(await page.locator(".vst-menu").count()).toBe(0);
    await page.close();
  });

  it("shows a spinner on an async item, then closes; Toggle theme and Sign out work", async () => {
    const page = await openPage("live", sessions.initials.refreshToken);
    await page.getByTestId("probe").filter({ hasText: "signed in" }).waitFor();
    await trigger(page).click();
    await menuItems(page).filter({ hasText: "Slow action" }).click();
    if (process.env.VST_DEBUG) console.log("clicked", await page.evaluate(() => window.__events), await page.locator(".vst-menu").innerHTML());
    await page.getByRole("progressbar", { name: "Working" }).waitFor();
    await shot(page, "6-async-item-spinner");
    await page.locator(".vst-menu").waitFor({ state: "detached" });
    expect(await page.evaluate(() => window.__events)).toEqual(["slow:start", "slow:end"]);
    await trigger(page).click();
    await menuItems(page).filter({ hasText: "Toggle theme" }).click();
    expect(await page.locator("[data-theme]").first().getAttribute("data-theme")).toBe("dark");
    await trigger(page).click();
    await menuItems(page).first().waitFor();
    await shot(page, "6-dark-theme-open");
    await menuItems(page).filter({ hasText: "Sign out" }).click();
    await page.getByTestId("probe").filter({ hasText: "signed out" }).waitFor();
    expect(await page.locator(".vst-avatar").getAttribute("data-avatar")).toBe("icon");
    const cookies = await context.cookies(server.url);
    expect(cookies.find((c) => c.name === `stack-refresh-${stack.demo.projectId}`)).toBeUndefined();
    await page.close();
    // The session was revoked on the server too: the refresh token no longer refreshes.
    const form = new URLSearchParams({ grant_type: "refresh_token", refresh_token: sessions.initials.refreshToken, client_id: stack.demo.projectId, client_secret: stack.demo.publishableClientKey });
    const refresh = await call(stack, "POST", "/api/v1/auth/oauth/token", { rawBody: form.toString(), contentType: "application/x-www-form-urlencoded" });
    expect(refresh.json.code).toBe("REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED");
    sessions.initials = await serverUser("Ada Lovelace", null);
  });

  it("opens a submenu after 100 ms of hover and keeps it for a 300 ms pointer grace; type-ahead resets after 1000 ms", async () => {
    const page = await openPage("demo", undefined, { clock: true });
    await trigger(page).waitFor();
    await trigger(page).click();
    // Freeze time: from here on only runFor advances it.
    await page.clock.pauseAt(new Date(Date.now() + 60_000));
    const language = menuItems(page).filter({ hasText: "Language" });
    await language.hover();
    await page.clock.runFor(90);
    expect(await page.locator("[role=menu] [role=menu]").count()).toBe(0);
    await page.clock.runFor(20);
    await page.locator("[role=menu] [role=menu]").waitFor();
    // Pointer leaves the item (towards the submenu): still open during the grace period, closed after it.
    await page.mouse.move(5, 300);
    await page.clock.runFor(250);
    expect(await page.locator("[role=menu] [role=menu]").count()).toBe(1);
    await page.clock.runFor(100);
    await page.locator("[role=menu] [role=menu]").waitFor({ state: "detached" });
    // Type-ahead: "s" then "s" within 1000 ms means "ss" (no match keeps the focus); after 1000 ms a new search starts.
    await page.keyboard.press("Home");
    await expect.poll(() => focusedText(page)).toBe("Account settings");
    await page.keyboard.type("s");
    await expect.poll(() => focusedText(page)).toBe("Slow action");
    await page.clock.runFor(500);
    await page.keyboard.type("s");
    await expect.poll(() => focusedText(page)).toBe("Slow action");
    await page.clock.runFor(1_000);
    await page.keyboard.type("s");
    await expect.poll(() => focusedText(page)).toBe("Sign out");
    await shot(page, "7-demo-mode");
    // Demo mode only logs.
    const logs: string[] = [];
    page.on("console", (m) => logs.push(m.text()));
    await page.keyboard.press("Enter");
    await expect.poll(() => logs).toContain("User menu demo: Sign out");
    expect(new URL(page.url()).pathname).toBe("/");
    await page.close();
  });
});
