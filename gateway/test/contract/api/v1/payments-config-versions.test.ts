/**
 * Read-your-writes for the payments configuration (issue 16): billing caches each project's payments config and drops
 * it on identity.project.* events. A request right after a config change must not depend on that event: the gateway
 * passes the configuration version it has seen, and billing reads the config again when its copy is older. Here
 * billing runs on a NATS bus of its own, where identity's events never arrive, so only the version can bring the
 * change to it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deleteNatsStreams, testNatsUrl, uniqueEventPrefix } from "@vestibule/shared/testing";
import { call, headersFor, startStack, type Stack } from "../../../support.ts";
import { PAYMENTS_CONFIG } from "../../../payments-support.ts";

const prefix = uniqueEventPrefix();
let stack: Stack;
let admin: Record<string, string>;
let server: Record<string, string>;

const configure = async (config: Record<string, unknown>) => {
  const res = await call(stack, "PATCH", "/api/v1/internal/config/override", { headers: admin, body: { config_override_string: JSON.stringify(config) } });
  expect(res.status).toBe(200);
};

beforeAll(async () => {
  stack = await startStack({ billing: true, teams: true, auth: true, billingEnv: { NATS_URL: testNatsUrl(), VESTIBULE_EVENT_PREFIX: prefix } });
  admin = headersFor(stack.demo, "admin");
  server = headersFor(stack.demo, "server");
  await configure(PAYMENTS_CONFIG);
}, 180_000);
afterAll(async () => {
  await stack?.stop();
  await deleteNatsStreams(prefix);
});

describe("payments configuration changes are seen by the next request", () => {
  it("an item configured just now can be read and changed at once", async () => {
    // Billing's copy of the config is warm and lacks "gems".
    expect((await call(stack, "GET", "/api/v1/payments/items/custom/c1/tokens", { headers: server })).status).toBe(200);
    expect((await call(stack, "GET", "/api/v1/payments/items/custom/c1/gems", { headers: server })).json.code).toBe("ITEM_NOT_FOUND");
    await configure({ "payments.items.gems": { displayName: "Gems", customerType: "custom" } });
    const changed = await call(stack, "POST", "/api/v1/payments/items/custom/c1/gems/update-quantity?allow_negative=false", { headers: server, body: { delta: 3 } });
    expect(changed.status).toBe(200);
    const read = await call(stack, "GET", "/api/v1/payments/items/custom/c1/gems", { headers: server });
    expect(read.json).toEqual({ id: "gems", display_name: "Gems", quantity: 3 });
  });

  it("a product configured just now can be granted at once, and blocking new purchases applies at once", async () => {
    const user = await call(stack, "POST", "/api/v1/users", { headers: server, body: { display_name: "Late buyer" } });
    expect(user.status).toBe(201);
    await configure({
      "payments.products.late": {
        displayName: "Late",
        customerType: "user",
        stackable: true,
        prices: { once: { USD: "1" } },
        includedItems: { credits: { quantity: 7, repeat: "never", expires: "never" } },
      },
    });
    const granted = await call(stack, "POST", `/api/v1/payments/products/user/${user.json.id}`, { headers: server, body: { product_id: "late" } });
    expect(granted.status).toBe(200);
    expect((await call(stack, "GET", `/api/v1/payments/items/user/${user.json.id}/credits`, { headers: server })).json.quantity).toBe(5 + 7);

    const url = await call(stack, "POST", "/api/v1/payments/purchases/create-purchase-url", { headers: server, body: { customer_type: "user", customer_id: user.json.id, product_id: "late" } });
    expect(url.status).toBe(200);
    const fullCode = decodeURIComponent(new URL(url.json.url).pathname.split("/handler/purchase/")[1]!);
    await configure({ "payments.blockNewPurchases": true });
    // First the purchase page's own call, which carries no project keys: the gateway reads the version of the code's
    // project (before any other call could make billing read the new config).
    const session = await call(stack, "POST", "/api/v1/payments/purchases/purchase-session", { headers: {}, body: { full_code: fullCode, price_id: "once" } });
    expect(session.json.code).toBe("NEW_PURCHASES_BLOCKED");
    const blocked = await call(stack, "POST", "/api/v1/internal/payments/test-mode-purchase-session", { headers: admin, body: { full_code: fullCode, price_id: "once" } });
    expect(blocked.json.code).toBe("NEW_PURCHASES_BLOCKED");
  });
});
