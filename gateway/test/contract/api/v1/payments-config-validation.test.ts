/**
 * Payments config validation (spec §5 payments rules; issue 16): admin config overrides that set `payments.*` with
 * invalid ids, included items that name no configured item, or bad prices are a 400 with the spec's messages, and
 * nothing is stored. Real identity on Postgres, through the gateway.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, headersFor, startStack, type Stack } from "../../../support.ts";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

const admin = () => headersFor(stack.demo, "admin");
const patch = (override: Record<string, unknown>) => call(stack, "PATCH", "/api/v1/internal/config/override", { headers: admin(), body: { config_override_string: JSON.stringify(override) } });
const patchLevel = (level: string, override: Record<string, unknown>) =>
  call(stack, "PATCH", `/api/v1/internal/config/override/${level}`, { headers: admin(), body: { config_override_string: JSON.stringify(override) } });
const payments = async () => JSON.parse((await call(stack, "GET", "/api/v1/internal/config", { headers: admin() })).json.config_string).payments;

async function refused(res: Awaited<ReturnType<typeof patch>>, ...messages: string[]): Promise<void> {
  expect(res.status).toBe(400);
  for (const m of messages) expect(res.text).toContain(m);
}

describe("payments config validation", () => {
  it("refuses invalid item, offer/product, group and price ids and stores nothing", async () => {
    const before = await payments();
    await refused(await patch({ "payments.items.1credits": { displayName: "Credits", customerType: "user" } }), "payments.items.1credits: invalid id", "at most 63 characters");
    await refused(await patch({ [`payments.items.${"a".repeat(64)}`]: { displayName: "Long", customerType: "user" } }), `payments.items.${"a".repeat(64)}: invalid id`);
    await refused(await patch({ "payments.offers.$pro": { displayName: "Pro", customerType: "user" } }), "payments.offers.$pro: invalid id");
    await refused(await patch({ "payments.catalogs.9plans": { displayName: "Plans" } }), "payments.catalogs.9plans: invalid id");
    await refused(await patch({ "payments.products.pro": { customerType: "user", prices: { "9monthly": { USD: "10" } } } }), "payments.products.pro.prices.9monthly: invalid price id");
    expect(await payments()).toEqual(before);
    // 63 characters, a leading underscore, hyphens: fine
    const ok = await patch({ [`payments.items._${"b".repeat(62)}`]: { displayName: "Max", customerType: "user" }, "payments.items.seat-pass": { displayName: "Seat", customerType: "team" } });
    expect(ok.status).toBe(200);
    expect(Object.keys((await payments()).items)).toEqual(expect.arrayContaining([`_${"b".repeat(62)}`, "seat-pass"]));
  });

  it("refuses included items that name no configured item (both dialects); an item defined in the same or an earlier change is fine", async () => {
    await refused(
      await patch({ "payments.offers.pack": { customerType: "user", prices: { once: { USD: "5" } }, includedItems: { ghost: { quantity: 1 } } } }),
      'payments.offers.pack.includedItems.ghost: Item "ghost" does not exist in payments.items',
    );
    await refused(await patch({ "payments.products.pack": { customerType: "user", includedItems: { ghost: { quantity: 1 } } } }), 'Item "ghost" does not exist');
    expect((await payments()).offers.pack).toBeUndefined();
    expect((await patch({ "payments.items.gems": { displayName: "Gems", customerType: "user" }, "payments.offers.gem-pack": { customerType: "user", prices: { once: { USD: "5" } }, includedItems: { gems: { quantity: 3 } } } })).status).toBe(200);
    expect((await patch({ "payments.products.gem-pro": { customerType: "user", prices: "include-by-default", includedItems: { gems: { quantity: 1 } } } })).status).toBe(200);
    // Removing an item that an offer still includes would leave a dangling reference: refused, still there.
    const reset = await call(stack, "POST", "/api/v1/internal/config/override/environment/reset-keys", { headers: admin(), body: { keys: ["payments.items.gems"] } });
    expect(reset.status).toBe(400);
    expect(reset.text).toContain('Item "gems" does not exist');
    expect((await payments()).items.gems).toBeDefined();
  });

  it("refuses bad prices with the spec's money messages, on every config level", async () => {
    const before = await payments();
    const offer = (prices: unknown) => ({ "payments.offers.priced": { displayName: "Priced", customerType: "user", prices } });
    await refused(await patch(offer({ p: { USD: "1.001" } })), "payments.offers.priced.prices.p.USD: Too many decimals; USD only has 2 decimals");
    await refused(await patch(offer({ p: { JPY: "1.5" } })), "Too many decimals; JPY only has 0 decimals");
    await refused(await patch(offer({ p: { USD: "01" } })), "Money amount must not have leading zeros");
    await refused(await patch(offer({ p: { USD: "ten" } })), "Money amount must be in the format of <number> or <number>.<number>");
    await refused(await patch(offer({ p: { USD: 10 } })), "Money amount must be in the format of <number> or <number>.<number>");
    await refused(await patch(offer({ p: { interval: [1, "month"] } })), "payments.offers.priced.prices.p: At least one currency is required");
    await refused(await patch(offer("free")), 'payments.offers.priced.prices must be "include-by-default" or an object of prices');
    // The seed-era PATCH answers the first problem (as the published backend does); a level's PUT lists them all.
    const both = offer({ a: { USD: "1.001" }, b: { EUR: "01" } });
    await refused(await patch(both), "[ERROR] payments.offers.priced.prices.a.USD: Too many decimals; USD only has 2 decimals");
    await refused(
      await call(stack, "PUT", "/api/v1/internal/config/override/branch", { headers: admin(), body: { config_string: JSON.stringify(both) } }),
      "payments.offers.priced.prices.a.USD: Too many decimals; USD only has 2 decimals\npayments.offers.priced.prices.b.EUR: Money amount must not have leading zeros",
    );
    // the same rules on the project and branch levels
    await refused(await patchLevel("project", offer({ p: { USD: "-1" } })), "Money amount must be in the format of <number> or <number>.<number>");
    await refused(await patchLevel("branch", offer({ p: { GBP: "2.999" } })), "Too many decimals; GBP only has 2 decimals");
    await refused(await call(stack, "PUT", "/api/v1/internal/config/override/project", { headers: admin(), body: { config_string: JSON.stringify(offer({ p: {} })) } }), "At least one currency is required");
    expect(await payments()).toEqual(before);
    expect((await patch(offer({ p: { USD: "0.99", EUR: "1", interval: [1, "month"] } }))).status).toBe(200);
    expect((await payments()).offers.priced.prices.p).toEqual({ USD: "0.99", EUR: "1", interval: [1, "month"] });
  });
});
