/**
 * Payments (contract §10, latest-sdk.md E; issue 16) through the gateway and the real billing service on Postgres:
 * item quantities and their rules, errors of both dialects (offers / products), purchase codes, test-mode purchases,
 * grants, products and the seed-era transactions list.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, expectKnownError, headersFor, startStack, type Stack } from "../../../support.ts";
import { PAYMENTS_CONFIG } from "../../../payments-support.ts";

let stack: Stack;
let admin: Record<string, string>;
let server: Record<string, string>;
let client: Record<string, string>;
/** Current-SDK callers (x-hexclave-* headers): their errors come in the product dialect. */
let currentClient: Record<string, string>;
let currentServer: Record<string, string>;
let userId: string;
let teamId: string;

beforeAll(async () => {
  stack = await startStack({ billing: true, teams: true, auth: true });
  admin = headersFor(stack.demo, "admin");
  server = headersFor(stack.demo, "server");
  client = headersFor(stack.demo, "client");
  currentClient = headersFor(stack.demo, "client", "x-hexclave-");
  currentServer = headersFor(stack.demo, "server", "x-hexclave-");
  const override = await call(stack, "PATCH", "/api/v1/internal/config/override", { headers: admin, body: { config_override_string: JSON.stringify(PAYMENTS_CONFIG) } });
  expect(override.status).toBe(200);
  const user = await call(stack, "POST", "/api/v1/users", { headers: server, body: { display_name: "Buyer" } });
  expect(user.status).toBe(201);
  userId = user.json.id;
  const team = await call(stack, "POST", "/api/v1/teams", { headers: server, body: { display_name: "Buyers" } });
  expect(team.status).toBe(201);
  teamId = team.json.id;
}, 180_000);
afterAll(async () => {
  await stack?.stop();
});

const item = (type: string, id: string, itemId: string, headers = server) => call(stack, "GET", `/api/v1/payments/items/${type}/${id}/${itemId}`, { headers });
const change = (type: string, id: string, itemId: string, body: Record<string, unknown>, allowNegative: string | null = "false", headers = server) =>
  call(stack, "POST", `/api/v1/payments/items/${type}/${id}/${itemId}/update-quantity${allowNegative === null ? "" : `?allow_negative=${allowNegative}`}`, { headers, body });
const purchaseUrl = (body: Record<string, unknown>, headers = client) => call(stack, "POST", "/api/v1/payments/purchases/create-purchase-url", { headers, body });
const fullCodeOf = (url: string) => decodeURIComponent(new URL(url).pathname.split("/handler/purchase/")[1]!);

describe("GET /payments/items", () => {
  it("answers configured items with their quantity; unknown items, wrong customer types and missing customers are known errors", async () => {
    const res = await item("custom", "customer-1", "tokens");
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ id: "tokens", display_name: "Tokens", quantity: 0 });
    expectKnownError(await item("custom", "customer-1", "nope"), 404, "ITEM_NOT_FOUND");
    const mismatch = await item("team", teamId, "credits");
    expectKnownError(mismatch, 400, "ITEM_CUSTOMER_TYPE_DOES_NOT_MATCH");
    expect(mismatch.json.details).toEqual({ item_id: "credits", customer_id: teamId, item_customer_type: "user", actual_customer_type: "team" });
    expectKnownError(await item("user", "6f1d4c1e-1111-4111-8111-111111111111", "credits"), 404, "USER_NOT_FOUND");
    expectKnownError(await item("team", "6f1d4c1e-1111-4111-8111-111111111111", "seats"), 404, "TEAM_NOT_FOUND");
    expect((await item("team", teamId, "seats")).json.quantity).toBe(0);
    // include-by-default offer "free" gives every user 5 credits while they own nothing else of its group
    expect((await item("user", userId, "credits")).json.quantity).toBe(5);
    expect((await call(stack, "GET", "/api/v1/payments/items/robot/x/credits", { headers: client })).json.code).toBe("SCHEMA_ERROR");
  });

  it("concurrent reads travel together (GetItems) and each answers as it would alone: quantities and errors", async () => {
    expect((await change("custom", "c-batch", "tokens", { delta: 4 })).status).toBe(200);
    expect((await change("custom", "c-batch", "tokens", { delta: 3, expires_at: new Date(Date.now() + 3_600_000).toISOString() })).status).toBe(200);
    const reads = [
      () => item("custom", "c-batch", "tokens"),
      () => item("custom", "c-batch-empty", "tokens"),
      () => item("custom", "c-batch", "nope"),
      () => item("team", teamId, "credits"),
      () => item("user", "6f1d4c1e-1111-4111-8111-111111111111", "credits"),
      () => item("user", userId, "credits"),
    ];
    const answers = await Promise.all(Array.from({ length: 60 }, (_, i) => reads[i % reads.length]!()));
    for (let i = 0; i < answers.length; i++) {
      const a = answers[i]!;
      switch (i % reads.length) {
        case 0:
          expect(a.json).toEqual({ id: "tokens", display_name: "Tokens", quantity: 7 });
          break;
        case 1:
          expect(a.json.quantity).toBe(0);
          break;
        case 2:
          expectKnownError(a, 404, "ITEM_NOT_FOUND");
          break;
        case 3:
          expectKnownError(a, 400, "ITEM_CUSTOMER_TYPE_DOES_NOT_MATCH");
          break;
        case 4:
          expectKnownError(a, 404, "USER_NOT_FOUND");
          break;
        default:
          expect(a.json.quantity).toBe(5);
      }
    }
  });
});

describe("POST /payments/items/.../update-quantity", () => {
  it("needs server access and the allow_negative query; refuses to go below zero without it", async () => {
    expectKnownError(await change("custom", "c-neg", "tokens", { delta: 1 }, "false", client), 401, "INSUFFICIENT_ACCESS_TYPE");
    expectKnownError(await change("custom", "c-neg", "tokens", { delta: 1 }, null), 400, "SCHEMA_ERROR");
    const added = await change("custom", "c-neg", "tokens", { delta: 3, description: "welcome" });
    expect(added.status).toBe(200);
    expect(added.json.id).toMatch(/^[0-9a-f-]{36}$/);
    const refused = await change("custom", "c-neg", "tokens", { delta: -4 });
    expectKnownError(refused, 400, "ITEM_QUANTITY_INSUFFICIENT_AMOUNT");
    expect(refused.json.details).toEqual({ item_id: "tokens", customer_id: "c-neg", quantity: -4 });
    expect((await item("custom", "c-neg", "tokens")).json.quantity).toBe(3);
    expect((await change("custom", "c-neg", "tokens", { delta: -4 }, "true")).status).toBe(200);
    expect((await item("custom", "c-neg", "tokens")).json.quantity).toBe(-1);
    expectKnownError(await change("custom", "c-neg", "tokens", { delta: 1, expires_at: "not a date" }), 400, "SCHEMA_ERROR");
    expectKnownError(await change("custom", "c-neg", "nope", { delta: 1 }), 404, "ITEM_NOT_FOUND");
  });

  it("expired changes stop counting; changes expiring later count", async () => {
    expect((await change("custom", "c-exp", "tokens", { delta: 7, expires_at: new Date(Date.now() - 1000).toISOString() })).status).toBe(200);
    expect((await change("custom", "c-exp", "tokens", { delta: 2, expires_at: new Date(Date.now() + 3_600_000).toISOString() })).status).toBe(200);
    expect((await change("custom", "c-exp", "tokens", { delta: 1 })).status).toBe(200);
    expect((await item("custom", "c-exp", "tokens")).json.quantity).toBe(3);
    // an expired change does not count towards what may be taken either
    expectKnownError(await change("custom", "c-exp", "tokens", { delta: -4 }), 400, "ITEM_QUANTITY_INSUFFICIENT_AMOUNT");
    expect((await change("custom", "c-exp", "tokens", { delta: -3 })).status).toBe(200);
    expect((await item("custom", "c-exp", "tokens")).json.quantity).toBe(0);
  });

  it("50 parallel decrements of a quantity of 10: exactly 10 succeed, 40 are refused, 0 left (never -1)", async () => {
    expect((await change("custom", "c-race", "tokens", { delta: 10 })).status).toBe(200);
    const results = await Promise.all(Array.from({ length: 50 }, () => change("custom", "c-race", "tokens", { delta: -1 })));
    expect(results.filter((r) => r.status !== 200 && r.status !== 400).map((r) => `${r.status} ${r.text.slice(0, 200)}`)).toEqual([]);
    expect(results.filter((r) => r.status === 200)).toHaveLength(10);
    const refused = results.filter((r) => r.status !== 200);
    expect(refused).toHaveLength(40);
    for (const r of refused) expect(r.json.code).toBe("ITEM_QUANTITY_INSUFFICIENT_AMOUNT");
    expect((await item("custom", "c-race", "tokens")).json.quantity).toBe(0);
  });
});

describe("POST /payments/purchases/create-purchase-url: errors in the caller's dialect", () => {
  it("offer fields → OFFER_* errors", async () => {
    const missing = await purchaseUrl({ customer_type: "user", customer_id: userId, offer_id: "nope" });
    expectKnownError(missing, 400, "OFFER_DOES_NOT_EXIST");
    expect(missing.json.details).toEqual({ offer_id: "nope", access_type: "client" });
    expect(missing.json.error).toBe('Offer with ID "nope" does not exist or you don\'t have permissions to access it.');
    expectKnownError(await purchaseUrl({ customer_type: "user", customer_id: userId, offer_id: "hidden" }), 400, "OFFER_DOES_NOT_EXIST");
    const mismatch = await purchaseUrl({ customer_type: "team", customer_id: teamId, offer_id: "pro" });
    expectKnownError(mismatch, 400, "OFFER_CUSTOMER_TYPE_DOES_NOT_MATCH");
    expect(mismatch.json.details).toEqual({ offer_id: "pro", customer_id: teamId, offer_customer_type: "user", actual_customer_type: "team" });
    // Inline offers: server only; both the SDK's `inline_offer` and the schema's `offer_inline`
    const inline = { display_name: "Inline", customer_type: "user", prices: { p: { USD: "1.00" } }, included_items: { credits: { quantity: 1 } } };
    expectKnownError(await purchaseUrl({ customer_type: "user", customer_id: userId, inline_offer: inline }), 400, "SCHEMA_ERROR");
    expect((await purchaseUrl({ customer_type: "user", customer_id: userId, inline_offer: inline }, server)).status).toBe(200);
    expect((await purchaseUrl({ customer_type: "user", customer_id: userId, offer_inline: inline }, server)).status).toBe(200);
    const inlineMismatch = await purchaseUrl({ customer_type: "team", customer_id: teamId, offer_inline: inline }, server);
    expectKnownError(inlineMismatch, 400, "OFFER_CUSTOMER_TYPE_DOES_NOT_MATCH");
    expect(inlineMismatch.json.details.offer_id).toBeNull();
    const badMoney = await purchaseUrl({ customer_type: "user", customer_id: userId, offer_inline: { ...inline, prices: { p: { USD: "1.001" }, q: { JPY: "01" }, r: {} } } }, server);
    expectKnownError(badMoney, 400, "SCHEMA_ERROR");
    expect(badMoney.json.error).toContain("Too many decimals; USD only has 2 decimals");
    expect(badMoney.json.error).toContain("Money amount must not have leading zeros");
    expect(badMoney.json.error).toContain("At least one currency is required");
  });

  it("product fields → PRODUCT_* errors; the products config key is read too", async () => {
    const missing = await purchaseUrl({ customer_type: "user", customer_id: userId, product_id: "nope" }, currentClient);
    expectKnownError(missing, 400, "PRODUCT_DOES_NOT_EXIST");
    expect(missing.json.details).toEqual({ product_id: "nope", context: null });
    const hidden = await purchaseUrl({ customer_type: "user", customer_id: userId, product_id: "hidden" }, currentClient);
    expectKnownError(hidden, 400, "PRODUCT_DOES_NOT_EXIST");
    expect(hidden.json.details).toEqual({ product_id: "hidden", context: "server_only" });
    const mismatch = await purchaseUrl({ customer_type: "user", customer_id: userId, product_id: "team-plan" }, currentClient);
    expectKnownError(mismatch, 400, "PRODUCT_CUSTOMER_TYPE_DOES_NOT_MATCH");
    expect(mismatch.json.details).toEqual({ product_id: "team-plan", customer_id: userId, product_customer_type: "team", actual_customer_type: "user" });
    const ok = await purchaseUrl({ customer_type: "team", customer_id: teamId, product_id: "team-plan" }, currentClient);
    expect(ok.status).toBe(200);
    expect(ok.json.url).toMatch(/\/handler\/purchase\/.+/);
    expectKnownError(await purchaseUrl({ customer_type: "user", customer_id: "6f1d4c1e-1111-4111-8111-111111111111", product_id: "pro" }, currentClient), 404, "USER_NOT_FOUND");
  });
});

describe("purchase codes and test-mode purchases", () => {
  it("validate-code shows the offer; a test-mode purchase grants its items and replaces the group's default", async () => {
    const { json } = await purchaseUrl({ customer_type: "user", customer_id: userId, offer_id: "pro" });
    const fullCode = fullCodeOf(json.url);
    expect(fullCode.startsWith(`${stack.demo.projectId}_`)).toBe(true);
    const valid = await call(stack, "POST", "/api/v1/payments/purchases/validate-code", { body: { full_code: fullCode } });
    expect(valid.status).toBe(200);
    expect(valid.json).toMatchObject({
      offer: { display_name: "Pro", customer_type: "user", prices: { monthly: { USD: "10", interval: [1, "month"] } } },
      project_id: stack.demo.projectId,
      already_bought_non_stackable: false,
      conflicting_group_offers: [],
    });
    expectKnownError(await call(stack, "POST", "/api/v1/payments/purchases/validate-code", { body: { full_code: `${fullCode}x` } }), 404, "VERIFICATION_CODE_NOT_FOUND");
    const buy = (priceId: string, headers = admin) =>
      call(stack, "POST", "/api/v1/internal/payments/test-mode-purchase-session", { headers, body: { full_code: fullCode, price_id: priceId, quantity: 1 } });
    expectKnownError(await buy("monthly", server), 401, "INSUFFICIENT_ACCESS_TYPE");
    expectKnownError(await buy("nope"), 400, "SCHEMA_ERROR");
    expect((await buy("monthly")).json).toEqual({ success: true });
    expect((await item("user", userId, "credits")).json.quantity).toBe(100);
    const again = await call(stack, "POST", "/api/v1/payments/purchases/validate-code", { body: { full_code: fullCode } });
    expect(again.json.already_bought_non_stackable).toBe(true);
    expectKnownError(await buy("monthly"), 400, "SCHEMA_ERROR");

    const tx = await call(stack, "GET", "/api/v1/internal/payments/transactions?type=subscription", { headers: admin });
    expect(tx.status).toBe(200);
    expect(tx.json.transactions[0]).toMatchObject({
      type: "subscription",
      customer_type: "user",
      customer_id: userId,
      quantity: 1,
      test_mode: true,
      offer_display_name: "Pro",
      price: { USD: "10", interval: [1, "month"] },
      status: "active",
    });
    expect(tx.json.next_cursor).toBeNull();
  });

  it("grants products (stackable quantities, PRODUCT_ALREADY_GRANTED for a second non-stackable) and lists them", async () => {
    const grant = (body: Record<string, unknown>, headers = server) => call(stack, "POST", `/api/v1/payments/products/team/${teamId}`, { headers, body });
    expectKnownError(await grant({ product_id: "team-plan" }, client), 401, "INSUFFICIENT_ACCESS_TYPE");
    const granted = await grant({ product_id: "team-plan" });
    expect(granted.status).toBe(200);
    expect(granted.json).toEqual({ success: true, subscription_id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    expectKnownError(await grant({ product_id: "team-plan" }, currentServer), 400, "PRODUCT_ALREADY_GRANTED");
    expectKnownError(await grant({ product_id: "pro" }, currentServer), 400, "PRODUCT_CUSTOMER_TYPE_DOES_NOT_MATCH");
    // A seed-era caller gets the same condition in its own dialect
    expectKnownError(await grant({ product_id: "pro" }), 400, "OFFER_CUSTOMER_TYPE_DOES_NOT_MATCH");
    expect((await item("team", teamId, "seats")).json.quantity).toBe(10);
    const list = await call(stack, "GET", `/api/v1/payments/products/team/${teamId}`, { headers: server });
    expect(list.status).toBe(200);
    expect(list.json).toMatchObject({
      items: [{ id: "team-plan", quantity: 1, type: "subscription", product: { display_name: "Team plan" }, subscription: { cancel_at_period_end: false } }],
      is_paginated: true,
      pagination: { next_cursor: null },
    });

    const pack = await call(stack, "POST", `/api/v1/payments/products/user/${userId}`, { headers: server, body: { product_id: "pack", quantity: 3 } });
    expect(pack.json).toEqual({ success: true });
    expect((await item("user", userId, "credits")).json.quantity).toBe(130);
  });

  it("transactions page with a cursor, newest first, and filter by type", async () => {
    for (let i = 0; i < 3; i++) expect((await change("custom", "c-tx", "tokens", { delta: i + 1, description: `tx ${i}` })).status).toBe(200);
    const first = await call(stack, "GET", "/api/v1/internal/payments/transactions?type=item_quantity_change&limit=2", { headers: admin });
    expect(first.json.transactions).toHaveLength(2);
    expect(first.json.transactions[0]).toMatchObject({ type: "item_quantity_change", customer_id: "c-tx", quantity: 3, description: "tx 2", item_id: "tokens", offer_display_name: null, price: null, status: null });
    expect(first.json.next_cursor).toEqual(expect.any(String));
    const second = await call(stack, "GET", `/api/v1/internal/payments/transactions?type=item_quantity_change&limit=2&cursor=${first.json.next_cursor}`, { headers: admin });
    expect(second.json.transactions[0]).toMatchObject({ customer_id: "c-tx", quantity: 1 });
    expectKnownError(await call(stack, "GET", "/api/v1/internal/payments/transactions", { headers: server }), 401, "INSUFFICIENT_ACCESS_TYPE");
    expectKnownError(await call(stack, "GET", "/api/v1/internal/payments/stripe/account-info", { headers: admin }), 404, "STRIPE_ACCOUNT_INFO_NOT_FOUND");
  });
});

describe("subscriptions, refunds and the current transactions shape", () => {
  it("cancels a subscription at period end; unknown ones are a 404", async () => {
    const cancel = (productId: string) => call(stack, "DELETE", `/api/v1/payments/products/team/${teamId}/${productId}`, { headers: server });
    expect((await cancel("nope")).status).toBe(404);
    const res = await cancel("team-plan");
    expect(res.status).toBe(200);
    const list = await call(stack, "GET", `/api/v1/payments/products/team/${teamId}`, { headers: server });
    expect(list.json.items[0].subscription).toMatchObject({ cancel_at_period_end: true });
    // still active until the period ends
    expect((await item("team", teamId, "seats")).json.quantity).toBe(10);
  });

  it("refunds with their errors: test mode not refundable, unknown, refunded twice", async () => {
    const admin2 = headersFor(stack.demo, "admin", "x-hexclave-");
    const refund = (body: Record<string, unknown>) => call(stack, "POST", "/api/v1/internal/payments/transactions/refund", { headers: admin2, body });
    const subs = await call(stack, "GET", "/api/v1/internal/payments/transactions?type=subscription", { headers: admin });
    const testMode = subs.json.transactions.find((t: { test_mode: boolean }) => t.test_mode);
    expectKnownError(await refund({ type: "subscription", id: testMode.id, amount_usd: "10" }), 400, "TEST_MODE_PURCHASE_NON_REFUNDABLE");
    expectKnownError(await refund({ type: "one-time-purchase", id: "6f1d4c1e-1111-4111-8111-111111111111", amount_usd: "1" }), 404, "ONE_TIME_PURCHASE_NOT_FOUND");
    const oneTime = (await call(stack, "GET", "/api/v1/internal/payments/transactions?type=one_time", { headers: admin })).json.transactions[0];
    // A granted purchase: nothing was paid, so it can only be ended (end_action "now"); the refund is its own transaction.
    const ok = await refund({ type: "one-time-purchase", id: oneTime.id, amount_usd: "0", end_action: "now" });
    expect(ok.json).toEqual({ success: true, refund_transaction_id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    expect(ok.json.refund_transaction_id).not.toBe(oneTime.id);
    expectKnownError(await refund({ type: "one-time-purchase", id: oneTime.id, amount_usd: "0", end_action: "now" }), 400, "ONE_TIME_PURCHASE_ALREADY_REFUNDED");
    const after = (await call(stack, "GET", "/api/v1/internal/payments/transactions?type=one_time", { headers: admin })).json.transactions;
    expect(after.find((t: { id: string }) => t.id === oneTime.id).status).toBe("refunded");
  });

  it("refund amounts follow the money rules and never exceed what was paid; bad requests store nothing", async () => {
    const current = headersFor(stack.demo, "admin", "x-hexclave-");
    const refund = (body: Record<string, unknown>) => call(stack, "POST", "/api/v1/internal/payments/transactions/refund", { headers: current, body });
    const refunds = async () => (await call(stack, "GET", "/api/v1/internal/payments/transactions?type=refund", { headers: current })).json.transactions as { id: string }[];
    const granted = await call(stack, "POST", `/api/v1/payments/products/user/${userId}`, { headers: server, body: { product_id: "pack" } });
    expect(granted.status).toBe(200);
    const oneTime = (await call(stack, "GET", `/api/v1/internal/payments/transactions?type=one_time&customer_id=${userId}`, { headers: admin })).json.transactions[0];
    expect(oneTime).toMatchObject({ type: "one_time", status: "active", test_mode: false });
    const before = await refunds();
    const bad = async (body: Record<string, unknown>, message: string) => {
      const res = await refund({ type: "one-time-purchase", id: oneTime.id, ...body });
      expectKnownError(res, 400, "SCHEMA_ERROR");
      expect(res.json.error).toContain(message);
    };
    await bad({ amount_usd: "1.001" }, "Too many decimals; USD only has 2 decimals");
    await bad({ amount_usd: "05" }, "Money amount must not have leading zeros");
    await bad({ amount_usd: "-1" }, "Money amount must be in the format of <number> or <number>.<number>");
    await bad({ amount_usd: "1e3" }, "Money amount must be in the format of <number> or <number>.<number>");
    await bad({ amount_usd: "0" }, "A refund must give money back (amount_usd above 0) or end the purchase (end_action)");
    await bad({ amount_usd: "0", end_action: "at-period-end" }, `end_action "at-period-end" applies to subscriptions only`);
    // A granted purchase was paid nothing: any money is an over-refund.
    await bad({ amount_usd: "0.01" }, "Refund amount (0.01 USD) cannot exceed the remaining refundable amount (0.00 USD)");
    expect((await refund({ type: "one-time-purchase", id: oneTime.id, amount_usd: "1", end_action: "later" })).json.code).toBe("SCHEMA_ERROR");
    expect((await refund({ type: "one-time-purchase", id: oneTime.id })).json.code).toBe("SCHEMA_ERROR");
    // A granted subscription has no invoices.
    const teamSub = (await call(stack, "GET", `/api/v1/internal/payments/transactions?type=subscription&customer_id=${teamId}`, { headers: admin })).json.transactions[0];
    const noInvoice = await refund({ type: "subscription", id: teamSub.id, invoice_id: "in_nope", amount_usd: "1" });
    expectKnownError(noInvoice, 404, "SUBSCRIPTION_INVOICE_NOT_FOUND");
    expect(noInvoice.json.details).toEqual({ subscription_invoice_id: "in_nope" });
    expectKnownError(await refund({ type: "one-time-purchase", id: teamSub.id, amount_usd: "0", end_action: "now" }), 404, "ONE_TIME_PURCHASE_NOT_FOUND");
    expect(await refunds()).toEqual(before);
    expect((await call(stack, "GET", `/api/v1/internal/payments/transactions?type=one_time&customer_id=${userId}`, { headers: admin })).json.transactions[0].status).toBe("active");
  });

  it("ending a subscription by a refund: the refund transaction revokes the grant; seed-era callers do not see refunds", async () => {
    const current = headersFor(stack.demo, "admin", "x-hexclave-");
    const teamSub = (await call(stack, "GET", `/api/v1/internal/payments/transactions?type=subscription&customer_id=${teamId}`, { headers: admin })).json.transactions[0];
    // canceled at period end by an earlier test: "at-period-end" again is refused, "now" ends it
    const again = await call(stack, "POST", "/api/v1/internal/payments/transactions/refund", { headers: current, body: { type: "subscription", id: teamSub.id, amount_usd: "0", end_action: "at-period-end" } });
    expectKnownError(again, 400, "SCHEMA_ERROR");
    expect(again.json.error).toContain("already canceled at the end of its period");
    const res = await call(stack, "POST", "/api/v1/internal/payments/transactions/refund", { headers: current, body: { type: "subscription", id: teamSub.id, amount_usd: "0", end_action: "now" } });
    expect(res.status).toBe(200);
    const refundId = res.json.refund_transaction_id as string;
    expect((await item("team", teamId, "seats")).json.quantity).toBe(0);
    expect((await call(stack, "GET", `/api/v1/payments/products/team/${teamId}`, { headers: server })).json.items).toEqual([]);
    expectKnownError(
      await call(stack, "POST", "/api/v1/internal/payments/transactions/refund", { headers: current, body: { type: "subscription", id: teamSub.id, amount_usd: "0", end_action: "now" } }),
      400,
      "SUBSCRIPTION_ALREADY_REFUNDED",
    );

    const list = (await call(stack, "GET", `/api/v1/internal/payments/transactions?customer_id=${teamId}`, { headers: current })).json.transactions;
    expect(list.find((t: { id: string }) => t.id === refundId)).toEqual({
      id: refundId,
      created_at_millis: expect.any(Number),
      effective_at_millis: expect.any(Number),
      type: "refund",
      customer_type: "team",
      customer_id: teamId,
      entries: [{ type: "product_revocation", adjusted_transaction_id: teamSub.id, adjusted_entry_index: 0, quantity: 1 }],
      adjusted_by: [],
      test_mode: false,
    });
    expect(list.find((t: { id: string }) => t.id === teamSub.id).adjusted_by).toEqual([{ transaction_id: refundId, entry_index: 0 }]);
    const onlyRefunds = (await call(stack, "GET", "/api/v1/internal/payments/transactions?type=refund", { headers: current })).json.transactions;
    expect(onlyRefunds.map((t: { type: string }) => t.type)).toEqual(onlyRefunds.map(() => "refund"));
    expect(onlyRefunds.map((t: { id: string }) => t.id)).toContain(refundId);
    const seed = (await call(stack, "GET", `/api/v1/internal/payments/transactions?customer_id=${teamId}`, { headers: admin })).json.transactions;
    expect(seed.map((t: { id: string }) => t.id)).not.toContain(refundId);
    expect(seed.find((t: { id: string }) => t.id === teamSub.id).status).toBe("refunded");
    expectKnownError(await call(stack, "GET", "/api/v1/internal/payments/transactions?type=refund", { headers: admin }), 400, "SCHEMA_ERROR");
  });

  it("current-SDK callers get entry-based transactions from the same path", async () => {
    const current = headersFor(stack.demo, "admin", "x-hexclave-");
    const res = await call(stack, "GET", `/api/v1/internal/payments/transactions?type=purchase&customer_id=${userId}`, { headers: current });
    expect(res.status).toBe(200);
    expect(res.json.transactions.length).toBeGreaterThan(0);
    for (const t of res.json.transactions) {
      expect(t).toMatchObject({ type: "purchase", customer_type: "user", customer_id: userId, entries: expect.any(Array), adjusted_by: expect.any(Array) });
      expect(t.entries[0]).toMatchObject({ type: "product_grant", customer_id: userId });
    }
    const changes = await call(stack, "GET", "/api/v1/internal/payments/transactions?type=manual-item-quantity-change&customer_id=c-tx", { headers: current });
    expect(changes.json.transactions[0]).toMatchObject({ type: "manual-item-quantity-change", entries: [{ type: "item_quantity_change", item_id: "tokens", customer_id: "c-tx", quantity: 3 }] });
  });
});

// Last: its purchase would be the newest one-time transaction the refund tests above pick.
describe("blocking new purchases", () => {
  it("payments.blockNewPurchases: purchase sessions and test-mode purchases are NEW_PURCHASES_BLOCKED, server grants still go", async () => {
    const block = (on: boolean) => call(stack, "PATCH", "/api/v1/internal/config/override", { headers: admin, body: { config_override_string: JSON.stringify({ "payments.blockNewPurchases": on }) } });
    const buyer = (await call(stack, "POST", "/api/v1/users", { headers: server, body: { display_name: "Blocked buyer" } })).json.id as string;
    const { json } = await purchaseUrl({ customer_type: "user", customer_id: buyer, offer_id: "pack" }, server);
    const body = { full_code: fullCodeOf(json.url), price_id: "once", quantity: 1 };
    expect((await block(true)).status).toBe(200);
    try {
      const session = await call(stack, "POST", "/api/v1/payments/purchases/purchase-session", { headers: currentClient, body });
      expectKnownError(session, 403, "NEW_PURCHASES_BLOCKED");
      expect(session.json.error).toBe("New purchases are currently blocked for this project. Please contact support for more information.");
      expectKnownError(await call(stack, "POST", "/api/v1/internal/payments/test-mode-purchase-session", { headers: admin, body }), 403, "NEW_PURCHASES_BLOCKED");
      expect((await item("user", buyer, "credits")).json.quantity).toBe(5);
      expect((await call(stack, "POST", `/api/v1/payments/products/user/${buyer}`, { headers: server, body: { product_id: "pack" } })).json).toEqual({ success: true });
      expect((await item("user", buyer, "credits")).json.quantity).toBe(15);
    } finally {
      expect((await block(false)).status).toBe(200);
    }
    expect((await call(stack, "POST", "/api/v1/internal/payments/test-mode-purchase-session", { headers: admin, body })).json).toEqual({ success: true });
    expect((await item("user", buyer, "credits")).json.quantity).toBe(25);
  });
});
