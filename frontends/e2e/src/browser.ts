/**
 * Chromium for the end-to-end tests: Debian's /usr/bin/chromium driven by playwright-core (no browser download), with
 * the flags of the toolchain notes, a fresh profile per launch, and helpers to screenshot a page in both themes.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type BrowserContext, type Page } from "playwright-core";

export const CHROMIUM_PATH = process.env.VESTIBULE_CHROMIUM ?? "/usr/bin/chromium";
export const ARTIFACTS_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "..", "artifacts");
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export interface Browser {
  readonly context: BrowserContext;
  newPage(): Promise<Page>;
  close(): Promise<void>;
  /** Console errors and uncaught exceptions of every page (a test can assert there were none). */
  readonly errors: string[];
}

export async function launchBrowser(options: { viewport?: { width: number; height: number } } = {}): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), "vestibule-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: options.viewport ?? { width: 1280, height: 860 },
  });
  const errors: string[] = [];
  const watch = (page: Page) => {
    page.on("pageerror", (err) => errors.push(`${page.url()}: ${err.message}`));
    page.on("console", (m) => {
      if (m.type() === "error" && !/favicon|Failed to load resource/.test(m.text())) errors.push(`${page.url()}: ${m.text()}`);
    });
  };
  context.on("page", watch);
  context.pages().forEach(watch);
  return {
    context,
    errors,
    newPage: () => context.newPage(),
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Screenshots the page in the light and the dark theme: artifacts/<name>.light.png and .dark.png. */
export async function screenshotBothThemes(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  for (const theme of ["light", "dark"] as const) {
    // String scripts: functions would carry the test runner's transpiler helpers into the page.
    await page.evaluate(`document.documentElement.dataset.theme = "${theme}"; document.documentElement.style.colorScheme = "${theme}";`);
    await page.waitForTimeout(50);
    await page.screenshot({ path: join(ARTIFACTS_DIR, `${name}.${theme}.png`), fullPage: true });
  }
  await page.evaluate(`document.documentElement.dataset.theme = "light"; document.documentElement.style.colorScheme = "light";`);
}
