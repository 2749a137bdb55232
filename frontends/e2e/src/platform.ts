/**
 * What most browser test files start with: a test platform with the frontends (deploy/src/test-platform.ts) and one
 * Chromium, and the keys an owner creates in the dashboard's keys area.
 *
 *   let tp: TestPlatform; let browser: Browser; let url: string;
 *   beforeAll(async () => ({ tp, browser, url } = await startBrowserPlatform()), 300_000);
 *   afterAll(() => stopBrowserPlatform({ tp, browser }));
 */
import type { Page } from "playwright-core";
import { startTestPlatform, type TestPlatform, type TestPlatformOptions } from "../../../deploy/src/test-platform.ts";
import { launchBrowser, type Browser } from "./browser.ts";

export interface BrowserPlatform {
  readonly tp: TestPlatform;
  readonly browser: Browser;
  /** The frontends' address (dashboard at /, hosted pages under /handler). */
  readonly url: string;
}

/** Starts the platform with its frontends (other options as given), then Chromium. */
export async function startBrowserPlatform(options: TestPlatformOptions = {}): Promise<BrowserPlatform> {
  const tp = await startTestPlatform({ ...options, platform: { ...options.platform, frontends: true } });
  const browser = await launchBrowser();
  return { tp, browser, url: tp.platform.frontendsUrl! };
}

/** Closes what `startBrowserPlatform` started (either may be missing when the start failed). */
export async function stopBrowserPlatform(p: { tp?: TestPlatform; browser?: Browser }): Promise<void> {
  await p.browser?.close();
  await p.tp?.stop();
}

export interface DashboardKeys {
  readonly projectId: string;
  readonly secretServerKey: string;
  readonly publishableClientKey: string;
  /** Request headers for server access to the project. */
  readonly server: Record<string, string>;
}

/**
 * Creates a key set in the keys area of the project at `projectPath` (a dashboard path, /projects/<id>) and reads the
 * keys the dialog shows once. With `confirm` (default) it then closes the dialog ("I have copied them").
 */
export async function createKeysInDashboard(page: Page, url: string, projectPath: string, options: { description?: string; confirm?: boolean } = {}): Promise<DashboardKeys> {
  await page.goto(`${url}${projectPath}/keys`);
  await page.getByLabel("Description").fill(options.description ?? "e2e");
  await page.getByRole("button", { name: "Create keys" }).click();
  const secretServerKey = (await page.getByTestId("copy-Secret server key").textContent())!.trim();
  const publishableClientKey = (await page.getByTestId("copy-Publishable client key").textContent())!.trim();
  if (options.confirm ?? true) await page.getByRole("button", { name: "I have copied them" }).click();
  const projectId = projectPath.split("/")[2]!;
  return { projectId, secretServerKey, publishableClientKey, server: { "x-stack-project-id": projectId, "x-stack-access-type": "server", "x-stack-secret-server-key": secretServerKey } };
}
