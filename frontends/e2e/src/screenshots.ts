/**
 * The screenshots the browser tests take, with the checks that go with them (vitest's expect, hence apart from
 * browser.ts, which the size and budget scripts also run outside the test runner).
 */
import { expect } from "vitest";
import type { Page } from "playwright-core";
import { screenshotBothThemes, unnamedControls } from "./browser.ts";

/**
 * The usual screenshots of a page: in both themes at desktop and phone width, once the data requests are done; nothing
 * may scroll sideways on a phone, and every control must have a name a screen reader can read.
 */
export async function shot(page: Page, name: string): Promise<void> {
  // Bounded: a page with a srcdoc iframe (e-mail previews) may never report network idle to Playwright although
  // nothing is loading.
  await page.waitForLoadState("networkidle", { timeout: 5_000 }).catch(() => undefined);
  expect(await unnamedControls(page), `controls without an accessible name on ${name}`).toEqual([]);
  const { phoneOverflow } = await screenshotBothThemes(page, name, { phone: true });
  expect(phoneOverflow, `${name} scrolls sideways at phone width`).toBe(false);
}

/** Screenshots of an open dialog (a modal: the page behind it is inert, so no control check). */
export async function shotDialog(page: Page, name: string): Promise<void> {
  await screenshotBothThemes(page, name, { phone: true });
}
