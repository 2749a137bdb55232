/**
 * Payments through the published Stack Auth SDKs, unchanged, against Vestibule (issue 16): @stackframe/js 2.8.41
 * (`getItem`, `item.tryDecreaseQuantity`, `createCheckoutUrl` with an offer) and the latest (`listProducts`,
 * `getBilling`, `grantProduct`, `createCheckoutUrl` with a product), on the real billing service.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as latest from "@stackframe/js";
import * as v2841 from "stackframe-js-2841";
import { call, headersFor, startStack, type Stack } from "../support.ts";
import { PAYMENTS_CONFIG } from "../payments-support.ts";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ billing: true, teams: true, auth: true });
  const admin = headersFor(stack.demo, "admin");
  const res = await call(stack, "PATCH", "/api/v1/internal/config/override", { headers: admin, body: { config_override_string: JSON.stringify(PAYMENTS_CONFIG) } });
  expect(res.status).toBe(200);
}, 180_000);
afterAll(async () => {
  await stack?.stop();
});

function options(extra: Record<string, unknown> = {}) {
  return {
    baseUrl: stack.url,
    projectId: stack.demo.projectId,
    publishableClientKey: stack.demo.publishableClientKey,
    tokenStore: "memory",
    noAutomaticPrefetch: true,
    ...extra,
  } as never;
}

describe("@stackframe/js 2.8.41", () => {
  const serverApp = () => new v2841.StackServerApp(options({ secretServerKey: stack.demo.secretServerKey }));

  it("getItem, increaseQuantity and tryDecreaseQuantity (false when insufficient, never below zero)", async () => {
    const app = serverApp();
    const item = await app.getItem({ itemId: "tokens", customCustomerId: "sdk-2841" });
    expect(item).toMatchObject({ displayName: "Tokens", quantity: 0, nonNegativeQuantity: 0 });
    await item.increaseQuantity(3);
    expect(await item.tryDecreaseQuantity(2)).toBe(true);
    expect(await item.tryDecreaseQuantity(2)).toBe(false);
    const after = await app.getItem({ itemId: "tokens", customCustomerId: "sdk-2841" });
    expect(after.quantity).toBe(1);
    await after.decreaseQuantity(5);
    const negative = await app.getItem({ itemId: "tokens", customCustomerId: "sdk-2841" });
    expect(negative).toMatchObject({ quantity: -4, nonNegativeQuantity: 0 });
  });

  it("user.getItem and user.createCheckoutUrl with an offer id; an unknown offer is the seed-era error", async () => {
    const app = serverApp();
    const user = await app.createUser({ displayName: "SDK buyer" });
    expect((await user.getItem("credits")).quantity).toBe(5);
    const url = await user.createCheckoutUrl({ offerId: "pro" });
    expect(url).toMatch(/\/handler\/purchase\/[^/]+$/);
    await expect(user.createCheckoutUrl({ offerId: "nope" })).rejects.toMatchObject({ errorCode: "OFFER_DOES_NOT_EXIST" });
  });
});

describe("@stackframe/js latest", () => {
  const serverApp = () => new latest.StackServerApp(options({ secretServerKey: stack.demo.secretServerKey }));

  it("grantProduct, listProducts, getBilling and createCheckoutUrl with a product id", async () => {
    const app = serverApp();
    const team = await app.createTeam({ displayName: "SDK team" });
    await app.grantProduct({ teamId: team.id, productId: "team-plan" });
    const products = await app.listProducts({ teamId: team.id });
    expect(products).toHaveLength(1);
    expect(products[0]).toMatchObject({ id: "team-plan", quantity: 1, displayName: "Team plan", customerType: "team", type: "subscription" });
    expect(products[0]!.subscription).toMatchObject({ cancelAtPeriodEnd: false, isCancelable: true });
    expect(products.nextCursor).toBeNull();
    expect((await app.getItem({ teamId: team.id, itemId: "seats" })).quantity).toBe(10);

    const user = await app.createUser({ displayName: "SDK latest buyer" });
    await user.grantProduct({ productId: "pack", quantity: 2 });
    expect((await user.getItem("credits")).quantity).toBe(25);
    expect(await user.getBilling()).toEqual({ hasCustomer: false, defaultPaymentMethod: null });
    const url = await user.createCheckoutUrl({ productId: "pro" });
    expect(url).toMatch(/\/handler\/purchase\/[^/]+$/);
    await expect(user.createCheckoutUrl({ productId: "nope" })).rejects.toMatchObject({ errorCode: "PRODUCT_DOES_NOT_EXIST" });
  });
});
