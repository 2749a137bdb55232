/**
 * Issue 17 in Chromium: in the Webhooks area (the federated remote in its development harness with the demo project's
 * admin key, against the whole platform), the admin adds an endpoint (its secret is shown once), sends a test event
 * to a real receiver on loopback that verifies the signature, and sees the attempt in the log. Screenshots in
 * frontends/e2e/artifacts/webhooks-*.png.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Page } from "playwright-core";
import { startTestPlatform, type TestPlatform } from "../../../deploy/src/test-platform.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../../../deploy/test/fixtures/webhook-receiver.ts";
import { FRONTEND_APPS, type RuntimeConfig } from "@vestibule/build-config/apps";
import { startFrontendsServer, type FrontendsServer } from "@vestibule/build-config/static-server";
import { launchBrowser, screenshotBothThemes, unnamedControls, type Browser } from "../src/browser.ts";

vi.setConfig({ testTimeout: 180_000 });

let tp: TestPlatform;
let browser: Browser;
let rx: WebhookReceiver;
let standalone: FrontendsServer;

async function shot(page: Page, name: string): Promise<void> {
  await page.waitForLoadState("networkidle", { timeout: 5_000 }).catch(() => undefined);
  expect(await unnamedControls(page), `controls without an accessible name on ${name}`).toEqual([]);
  const { phoneOverflow } = await screenshotBothThemes(page, name, { phone: true });
  expect(phoneOverflow, `${name} scrolls sideways at phone width`).toBe(false);
}

beforeAll(async () => {
  rx = await startWebhookReceiver();
  tp = await startTestPlatform({
    platform: { frontends: true, readyTimeoutMs: 240_000, env: { VESTIBULE_EGRESS_ALLOW: "127.0.0.1/32", VESTIBULE_WEBHOOK_POLL_MS: "200" } },
  });
  const url = tp.platform.frontendsUrl!;
  const config = (await (await fetch(`${url}/config.json`)).json()) as RuntimeConfig;
  const demo = tp.projects.demo;
  const dev = { apiUrl: tp.gatewayUrl, projectId: demo.project_id, superSecretAdminKey: demo.super_secret_admin_key, secretServerKey: demo.secret_server_key, frontendsOrigin: url, mode: "development" };
  const documents = Object.fromEntries(FRONTEND_APPS.filter((a) => a.area).map((a) => [`${a.mountPath}dev-config.json`, dev]));
  standalone = await startFrontendsServer({ port: 0, host: "127.0.0.1", config, documents });
  browser = await launchBrowser();
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await standalone?.close();
  await tp?.stop();
  await rx?.close();
});

describe("dashboard webhooks", () => {
  it("the admin adds an endpoint, sends a test event and sees the attempt", async () => {
    const page = await browser.newPage();
    await page.goto(`${standalone.url}/remotes/dashboard-webhooks/`);
    await page.getByRole("heading", { name: "Webhooks", exact: true }).waitFor();
    await page.getByText("No endpoints yet.").waitFor();
    await page.waitForLoadState("networkidle", { timeout: 5_000 }).catch(() => undefined);
    // The page's token (POST /webhooks/svix-token) opened its API: no error alert.
    expect(await page.getByRole("alert").count()).toBe(0);
    await shot(page, "webhooks-empty");

    // A bad URL is refused before any request.
    await page.getByLabel("Endpoint URL").fill("not a url");
    await page.getByRole("button", { name: "Add endpoint" }).click();
    await page.getByText("Enter an http or https URL.").waitFor();

    await page.getByLabel("Endpoint URL").fill(rx.url("/e2e"));
    await page.getByLabel("Description").fill("E2E receiver");
    await page.getByRole("button", { name: "Add endpoint" }).click();
    await page.getByText("Copy the signing secret now: it will not be shown again.").waitFor();
    const secretValue = ((await page.locator("code").filter({ hasText: /^whsec_/ }).first().textContent()) ?? "").trim();
    expect(secretValue).toMatch(/^whsec_/);
    rx.accept("/e2e", secretValue);
    await shot(page, "webhooks-secret-once");
    await page.getByRole("button", { name: "I have copied it" }).click();

    await page.getByRole("button", { name: `Send test event to ${rx.url("/e2e")}` }).click();
    await page.getByText(/Test event queued/).waitFor();
    for (let i = 0; i < 60 && rx.at("/e2e").length === 0; i++) await page.waitForTimeout(250);
    expect(rx.at("/e2e")).toHaveLength(1);
    expect(rx.at("/e2e")[0]!.verified).toBe(true);
    expect(rx.at("/e2e")[0]!.payload?.type).toBe("test.event");
    // The attempt shows up in the log (refreshing until it is recorded).
    const ok = page.getByText("204 OK");
    for (let i = 0; i < 20 && !(await ok.isVisible()); i++) {
      await page.getByRole("button", { name: "Refresh" }).click();
      await page.waitForTimeout(500);
    }
    await ok.waitFor();
    await expect(page.getByRole("cell", { name: "test.event" }).count()).resolves.toBeGreaterThan(0);
    // Filter: failed attempts only → none.
    await page.getByLabel("Status").selectOption("failed");
    await page.getByText("No delivery attempts yet.").waitFor();
    await page.getByLabel("Status").selectOption("");
    await ok.waitFor();
    await shot(page, "webhooks-attempt");
    await page.close();
  });
});
