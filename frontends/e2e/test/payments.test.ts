/**
 * Issue 16 in Chromium against the whole platform (services, gateway, built frontends, the local Stripe server): a new
 * owner defines an item and an offer in the dashboard's payments area, makes a purchase link for a user, opens it, sees
 * the offer, its price and quantity on the hosted purchase page and completes a test-mode purchase; the user's item
 * quantity then shows in the payments area (and through the API), and the transactions table lists the purchase.
 * A visitor who is not an owner sees the offer but cannot complete a test purchase. Then the owner sets up Stripe
 * (the local Stripe server's onboarding page) and a visitor pays with test cards through the page's Stripe.js. Screenshots of the payments area
 * and the purchase page at desktop and phone width go to frontends/e2e/artifacts/ (git-ignored).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Page } from "playwright-core";
import type { TestPlatform } from "../../../deploy/src/test-platform.ts";
import { screenshotBothThemes, unnamedControls, type Browser } from "../src/browser.ts";
import { createKeysInDashboard, startBrowserPlatform, stopBrowserPlatform } from "../src/platform.ts";
import { PASSWORD, ownerWithProject, run } from "../src/accounts.ts";

vi.setConfig({ testTimeout: 180_000 });

let tp: TestPlatform;
let browser: Browser;
let url: string;

/** Screenshots in both themes at desktop and phone width; nothing scrolls sideways and every control has a name. */
async function shot(page: Page, name: string): Promise<void> {
  await page.waitForLoadState("networkidle", { timeout: 5_000 }).catch(() => undefined);
  expect(await unnamedControls(page), `controls without an accessible name on ${name}`).toEqual([]);
  const { phoneOverflow } = await screenshotBothThemes(page, name, { phone: true });
  expect(phoneOverflow, `${name} scrolls sideways at phone width`).toBe(false);
}

beforeAll(async () => ({ tp, browser, url } = await startBrowserPlatform({ stripe: true, platform: { readyTimeoutMs: 180_000 } })), 400_000);

afterAll(() => stopBrowserPlatform({ tp, browser }));

describe("payments: dashboard area, purchase page, test-mode purchase", () => {
  let page: Page;
  let projectPath = "";
  let projectId = "";
  let serverKey = "";
  let userId = "";
  let purchasePath = "";

  const asServer = () => ({ "x-stack-project-id": projectId, "x-stack-access-type": "server", "x-stack-secret-server-key": serverKey, "content-type": "application/json" });

  beforeAll(async () => {
    page = await browser.newPage();
    projectPath = await ownerWithProject(page, url, `payments-owner-${run}@example.com`, PASSWORD, `Shop ${run}`);
    projectId = projectPath.split("/").pop()!;
    // Server keys of the new project, for creating the customer through the API.
    serverKey = (await createKeysInDashboard(page, url, projectPath)).secretServerKey;
    const res = await fetch(`${tp.gatewayUrl}/api/v1/users`, { method: "POST", headers: asServer(), body: JSON.stringify({ primary_email: `buyer-${run}@example.com` }) });
    expect(res.status).toBe(201);
    userId = ((await res.json()) as { id: string }).id;
  }, 150_000);

  it("defines an item and an offer in the payments area (with a sentence for a bad id)", async () => {
    await page.goto(`${url}${projectPath}/payments`);
    await page.getByRole("heading", { name: "Payments" }).waitFor();
    await page.getByText("No Stripe account yet.").waitFor();
    await shot(page, "payments-stripe");

    await page.getByRole("tab", { name: "Items & offers" }).click();
    const itemForm = page.getByRole("form", { name: "Add an item" });
    await itemForm.getByLabel("Item id").fill("1credits");
    await itemForm.getByLabel("Item display name").fill("Credits");
    await itemForm.getByRole("button", { name: "Save item" }).click();
    await itemForm.getByText("Ids have at most 63 characters: letters, digits, _ and -, starting with a letter or _.").waitFor();
    await itemForm.getByLabel("Item id").fill("credits");
    await itemForm.getByRole("button", { name: "Save item" }).click();
    await page.getByText("Item credits saved.").waitFor();
    await page.getByRole("table", { name: "Items" }).getByRole("cell", { name: "Credits", exact: true }).waitFor();

    const offerForm = page.getByRole("form", { name: "Add or edit an offer" });
    await offerForm.getByLabel("Offer id").fill("credits-pack");
    await offerForm.getByLabel("Offer display name").fill("Credits pack");
    await offerForm.getByLabel("Price id").fill("one");
    await offerForm.getByLabel("Amount").fill("5.5.0");
    await offerForm.getByLabel("Billing interval").selectOption("one-time");
    await offerForm.getByLabel("Included item").selectOption("credits");
    await offerForm.getByLabel("Included quantity").fill("100");
    await offerForm.getByRole("switch", { name: /Stackable/ }).check();
    await offerForm.getByRole("button", { name: "Save offer" }).click();
    await offerForm.getByText("Enter an amount such as 9.99 (at most two decimals).").waitFor();
    await offerForm.getByLabel("Amount").fill("5.00");
    await offerForm.getByRole("button", { name: "Save offer" }).click();
    await page.getByText("Offer credits-pack saved.").waitFor();
    await page.getByRole("table", { name: "Offers" }).getByText("Credits pack").waitFor();
    await shot(page, "payments-catalog");
  });

  it("makes a purchase link; the owner completes a test-mode purchase on the hosted page; the quantity shows", async () => {
    await page.getByRole("tab", { name: "Test purchase" }).click();
    await page.getByLabel("User id").fill(userId);
    await page.getByRole("button", { name: "Make a purchase link" }).click();
    const link = (await page.getByTestId("copy-Purchase link").textContent())!.trim();
    expect(link).toMatch(/\/handler\/purchase\/[^/]+$/);
    await shot(page, "payments-test-purchase");
    purchasePath = new URL(link).pathname;

    // A visitor who is not an owner sees the offer, but test mode needs an owner.
    const visitor = await browser.newPage();
    await visitor.goto(`${url}${purchasePath}`);
    await visitor.getByRole("heading", { name: "Credits pack" }).waitFor();
    await visitor.getByText("Test mode: nothing is charged.").waitFor();
    await visitor.getByText(/one-time payment/).waitFor();
    await visitor.getByText("Only the project's owners can complete a test purchase, signed in to the dashboard.", { exact: false }).waitFor();
    await shot(visitor, "purchase-page-visitor");
    await visitor.close();

    // The owner (signed in to the dashboard on this origin) buys 2 packs.
    await page.goto(`${url}${purchasePath}`);
    await page.getByRole("heading", { name: "Credits pack" }).waitFor();
    await page.getByText("100 × credits").waitFor();
    await page.getByLabel("Quantity").fill("2");
    await page.getByText(/Total: .*10\.00/).waitFor();
    await shot(page, "purchase-page");
    await page.getByRole("button", { name: "Complete test purchase" }).click();
    await page.getByRole("heading", { name: "Payment complete" }).waitFor();
    await page.getByText("You bought Credits pack × 2.", { exact: false }).waitFor();
    await shot(page, "purchase-page-done");

    const item = await fetch(`${tp.gatewayUrl}/api/v1/payments/items/user/${userId}/credits`, { headers: asServer() });
    expect(await item.json()).toMatchObject({ id: "credits", display_name: "Credits", quantity: 200 });

    // The quantity in the payments area, then a correction of -50.
    await page.goto(`${url}${projectPath}/payments`);
    await page.getByRole("tab", { name: "Customers" }).click();
    await page.getByLabel("User id").fill(userId);
    await page.getByRole("button", { name: "Look up quantity" }).click();
    await expect(page.getByTestId("item-quantity").textContent()).resolves.toContain("Credits: 200");
    await page.getByLabel("Change by").fill("-50");
    await page.getByLabel("Description (optional)").fill("support refund");
    await page.getByRole("button", { name: "Change quantity" }).click();
    await page.getByText("Changed by -50.").waitFor();
    await page.getByTestId("item-quantity").getByText("150").waitFor();
    await shot(page, "payments-customers");

    // Transactions: both, then filtered by type.
    await page.getByRole("tab", { name: "Transactions" }).click();
    const table = page.getByRole("table", { name: "Transactions" });
    await table.getByText("Credits pack").waitFor();
    await table.getByText("Test").first().waitFor();
    await shot(page, "payments-transactions");
    await page.getByLabel("Type", { exact: true }).selectOption("item_quantity_change");
    await table.getByText("Quantity change").first().waitFor();
    await expect(table.getByText("Credits pack").count()).resolves.toBe(0);
  });

  it("with Stripe set up, a visitor pays with a test card: a declined card says so, 4242 pays, the webhook grants the items", async () => {
    await page.goto(`${url}${projectPath}/payments`);
    await page.getByRole("button", { name: "Set up payments" }).click();
    // The local Stripe server's onboarding page (Stripe's hosted onboarding in production).
    await page.getByRole("button", { name: "Complete onboarding" }).click();
    await page.waitForURL((u) => !u.href.includes("/connect/onboarding/"), { waitUntil: "commit" }).catch(() => undefined);
    await page.goto(`${url}${projectPath}/payments`);
    await page.getByTestId("stripe-state").getByText("Charges enabled: yes").waitFor();
    await shot(page, "payments-stripe-onboarded");

    await page.getByRole("tab", { name: "Test purchase" }).click();
    await page.getByLabel("User id").fill(userId);
    await page.getByRole("button", { name: "Make a purchase link" }).click();
    const link = (await page.getByTestId("copy-Purchase link").textContent())!.trim();

    const visitor = await browser.newPage();
    await visitor.goto(`${url}${new URL(link).pathname}`);
    await visitor.getByRole("heading", { name: "Credits pack" }).waitFor();
    await visitor.getByRole("button", { name: "Continue to payment" }).click();
    await visitor.getByLabel("Card number").fill("4000 0000 0000 0002");
    await visitor.getByLabel("Expiry (MM / YY)").fill("12 / 40");
    await visitor.getByLabel("CVC").fill("123");
    await visitor.getByRole("button", { name: /^Pay / }).click();
    await visitor.getByText("Your card was declined.").waitFor();
    await shot(visitor, "purchase-page-declined");
    await visitor.getByLabel("Card number").fill("4242 4242 4242 4242");
    await visitor.getByRole("button", { name: /^Pay / }).click();
    await visitor.getByRole("heading", { name: "Payment complete" }).waitFor();
    await shot(visitor, "purchase-page-paid");
    await visitor.close();

    // payment_intent.succeeded reaches the gateway's webhook route signed; billing grants 100 more credits.
    await expect
      .poll(async () => ((await (await fetch(`${tp.gatewayUrl}/api/v1/payments/items/user/${userId}/credits`, { headers: asServer() })).json()) as { quantity: number }).quantity, { timeout: 30_000, interval: 500 })
      .toBe(250);
    expect(tp.stripe!.deliveries.some((d) => d.type === "payment_intent.succeeded" && d.status === 200)).toBe(true);
  });

  it("a used or unknown purchase code says so in a sentence", async () => {
    const other = await browser.newPage();
    await other.goto(`${url}/handler/purchase/not-a-real-code`);
    await other.getByRole("heading", { name: "This purchase link does not work" }).waitFor();
    await shot(other, "purchase-page-bad-code");
    await other.close();
  });
});
