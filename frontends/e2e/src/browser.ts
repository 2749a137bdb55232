/**
 * Chromium for the end-to-end tests: Debian's /usr/bin/chromium driven by playwright-core (no browser download), with
 * the flags of the toolchain notes, one isolated context (own cookies and storage) per visitor, and helpers to
 * screenshot a page in both themes.
 */
import { mkdirSync } from "node:fs";
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
  /** A fresh visitor: its own cookies and local storage. Close it when done. */
  newContext(options?: { viewport?: { width: number; height: number } }): Promise<BrowserContext>;
  /** A page in a fresh context (closing the page closes its context). */
  newPage(options?: { viewport?: { width: number; height: number } }): Promise<Page>;
  close(): Promise<void>;
  /** Console errors and uncaught exceptions of every page (a test can assert there were none). */
  readonly errors: string[];
}

export async function launchBrowser(): Promise<Browser> {
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
  const errors: string[] = [];
  const watch = (page: Page) => {
    page.on("pageerror", (err) => errors.push(`${page.url()}: ${err.message}`));
    page.on("console", (m) => {
      if (m.type() === "error" && !/favicon|Failed to load resource/.test(m.text())) errors.push(`${page.url()}: ${m.text()}`);
    });
  };
  const newContext = async (options: { viewport?: { width: number; height: number } } = {}) => {
    const context = await browser.newContext({ viewport: options.viewport ?? { width: 1280, height: 860 } });
    context.on("page", watch);
    return context;
  };
  return {
    errors,
    newContext,
    newPage: async (options) => {
      const context = await newContext(options);
      const page = await context.newPage();
      page.on("close", () => void context.close().catch(() => undefined));
      return page;
    },
    close: () => browser.close(),
  };
}

/** Widths the screenshots are taken at: a desktop window and a phone. */
export const PHONE_VIEWPORT = { width: 375, height: 740 };

/**
 * Screenshots the page in the light and the dark theme: artifacts/<name>.light.png and .dark.png; with `phone`, also
 * at phone width (<name>.phone.light.png, .phone.dark.png), and checks nothing scrolls sideways there.
 */
export async function screenshotBothThemes(page: Page, name: string, options: { phone?: boolean } = {}): Promise<{ phoneOverflow: boolean }> {
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  const take = async (suffix: string) => {
    for (const theme of ["light", "dark"] as const) {
      // String scripts: functions would carry the test runner's transpiler helpers into the page.
      await page.evaluate(`document.documentElement.dataset.theme = "${theme}"; document.documentElement.style.colorScheme = "${theme}";`);
      await page.waitForTimeout(50);
      await page.screenshot({ path: join(ARTIFACTS_DIR, `${name}${suffix}.${theme}.png`), fullPage: true });
    }
  };
  await take("");
  let phoneOverflow = false;
  if (options.phone) {
    const size = page.viewportSize();
    await page.setViewportSize(PHONE_VIEWPORT);
    await page.waitForTimeout(100);
    phoneOverflow = (await page.evaluate("document.documentElement.scrollWidth > window.innerWidth")) as boolean;
    await take(".phone");
    if (size) await page.setViewportSize(size);
  }
  await page.evaluate(`document.documentElement.dataset.theme = "light"; document.documentElement.style.colorScheme = "light";`);
  return { phoneOverflow };
}

/**
 * Form controls and buttons of the page that a screen reader could not name: inputs, selects and text areas without
 * a label, aria-label or aria-labelledby; buttons and links without text or aria-label. Returns a short description
 * of each (empty when every control has a name). Hidden elements are ignored.
 */
export async function unnamedControls(page: Page): Promise<string[]> {
  // A string script: functions would carry the test runner's transpiler helpers into the page.
  return (await page.evaluate(`(() => {
    const visible = (el) => !!(el.offsetWidth || el.offsetHeight || el.getClientRects().length) && getComputedStyle(el).visibility !== "hidden";
    const named = (el) => {
      if ((el.getAttribute("aria-label") || "").trim()) return true;
      const by = el.getAttribute("aria-labelledby");
      if (by && by.split(/\\s+/).some((id) => (document.getElementById(id)?.textContent || "").trim())) return true;
      if (el.labels && Array.from(el.labels).some((l) => (l.textContent || "").trim())) return true;
      if (el.tagName === "BUTTON" || el.tagName === "A") return (el.textContent || "").trim().length > 0 || !!el.querySelector("img[alt]:not([alt=''])");
      return !!(el.getAttribute("title") || "").trim();
    };
    const out = [];
    for (const el of document.querySelectorAll("input:not([type=hidden]), select, textarea, button, a[href]")) {
      if (!visible(el) || named(el)) continue;
      out.push(el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") + (el.className ? "." + String(el.className).split(" ").join(".") : ""));
    }
    return out;
  })()`)) as string[];
}
