import type { FastifyRequest } from "fastify";
import { describe, expect, it } from "vitest";
import { knownError } from "@vestibule/shared/errors";
import { callerGeneration, inCallerDialect } from "./generation.ts";

const req = (headers: Record<string, string>) => ({ headers }) as unknown as FastifyRequest;
const seed = req({ "x-stack-project-id": "p", "x-stack-access-type": "server", "x-stack-client-version": "js @stackframe/js@2.8.41" });
const last = req({ "x-stack-project-id": "p", "x-stack-client-version": "js @stackframe/js@2.8.102" });
const current = req({ "x-hexclave-project-id": "p", "x-hexclave-client-version": "js @stackframe/js@2.8.108" });

describe("caller generation (issue 13)", () => {
  it("is current for x-hexclave- callers and @stackframe 2.8.102+, seed otherwise", () => {
    expect(callerGeneration(seed)).toBe("seed");
    expect(callerGeneration(last)).toBe("current");
    expect(callerGeneration(current)).toBe("current");
    expect(callerGeneration(req({ "x-hexclave-project-id": "p" }))).toBe("current");
    expect(callerGeneration(req({ "x-stack-project-id": "p", "x-stack-client-version": "js @stackframe/stack@2.9.0" }))).toBe("current");
    expect(callerGeneration(req({ "x-stack-project-id": "p", "x-stack-client-version": "js @stackframe/js@2.8.99" }))).toBe("seed");
    expect(callerGeneration(req({}))).toBe("seed");
  });

  it("answers offer codes to seed callers and product codes to current ones", () => {
    const offer = knownError("OFFER_DOES_NOT_EXIST", { offer_id: "pro", access_type: "client" });
    expect(inCallerDialect(offer, seed)).toBe(offer);
    expect(inCallerDialect(offer, current).toJSON()).toEqual({
      code: "PRODUCT_DOES_NOT_EXIST",
      details: { product_id: "pro", context: null },
      error: 'Product with ID "pro" does not exist.',
    });
    const product = knownError("PRODUCT_DOES_NOT_EXIST", { product_id: "pro", context: null });
    expect(inCallerDialect(product, last)).toBe(product);
    expect(inCallerDialect(product, seed).toJSON()).toEqual({
      code: "OFFER_DOES_NOT_EXIST",
      details: { offer_id: "pro", access_type: "server" },
      error: 'Offer with ID "pro" does not exist.',
    });
    const mismatch = knownError("OFFER_CUSTOMER_TYPE_DOES_NOT_MATCH", { offer_id: null, customer_id: "c1", offer_customer_type: "user", actual_customer_type: "team" });
    expect(inCallerDialect(mismatch, current).toJSON()).toMatchObject({
      code: "PRODUCT_CUSTOMER_TYPE_DOES_NOT_MATCH",
      details: { product_id: null, customer_id: "c1", product_customer_type: "user", actual_customer_type: "team" },
    });
    // A code only one generation knows and without a counterpart goes out unchanged.
    const other = knownError("TEAM_ALREADY_EXISTS", { team_id: "t" });
    expect(inCallerDialect(other, current)).toBe(other);
  });
});
