import { describe, expect, it } from "vitest";
import type { ConfigOverride } from "./domain/config/index.ts";
import { checkLevels } from "./project-checks.ts";

const levels = (environment: ConfigOverride) => ({ project: {}, branch: {}, environment });
const messageOf = (f: () => void): string => {
  try {
    f();
  } catch (e) {
    return (e as Error).message;
  }
  return "";
};

describe("checkLevels: payments", () => {
  it("lists every payments problem of the rendered config, one per line", () => {
    const doc: ConfigOverride = { "payments.offers.o": { prices: { p: { USD: "1.001" }, q: {} }, includedItems: { ghost: { quantity: 1 } } } };
    expect(messageOf(() => checkLevels(levels(doc), doc))).toBe(
      "Invalid project configuration: payments.offers.o.prices.p.USD: Too many decimals; USD only has 2 decimals\n" +
        "payments.offers.o.prices.q: At least one currency is required\n" +
        'payments.offers.o.includedItems.ghost: Item "ghost" does not exist in payments.items',
    );
  });

  it("does not hold a problem the project already had against an unrelated change, but refuses new ones", () => {
    const stored: ConfigOverride = { "payments.offers.old": { prices: { p: { USD: "01" } } } };
    const unrelated: ConfigOverride = { ...stored, "auth.allowSignUp": false };
    expect(messageOf(() => checkLevels(levels(unrelated), unrelated, levels(stored)))).toBe("");
    const worse: ConfigOverride = { ...stored, "payments.items.9x": { displayName: "X" } };
    expect(messageOf(() => checkLevels(levels(worse), worse, levels(stored)))).toContain("payments.items.9x: invalid id");
    expect(messageOf(() => checkLevels(levels(worse), worse, levels(stored)))).not.toContain("payments.offers.old");
  });
});
