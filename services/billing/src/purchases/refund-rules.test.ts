import { describe, expect, it } from "vitest";
import { checkRefundAmount, formatUsd, readRefundRequest } from "./refund-rules.ts";

const messageOf = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error("expected an error");
};

describe("refund requests", () => {
  it("reads a USD money amount into cents and the end action", () => {
    expect(readRefundRequest({ type: "one-time-purchase", amountUsd: "12.5", endAction: "" })).toEqual({ oneTime: true, cents: 1250, endAction: null });
    expect(readRefundRequest({ type: "subscription", amountUsd: "0", endAction: "at-period-end" })).toEqual({ oneTime: false, cents: 0, endAction: "at-period-end" });
    expect(readRefundRequest({ type: "subscription", amountUsd: "0.07", endAction: "now" })).toEqual({ oneTime: false, cents: 7, endAction: "now" });
  });

  it("refuses bad amounts with the spec's messages, no-op refunds and at-period-end on one-time purchases", () => {
    const read = (amountUsd: string, endAction = "", type = "one-time-purchase") => messageOf(() => readRefundRequest({ type, amountUsd, endAction }));
    expect(read("1.234")).toContain("Too many decimals; USD only has 2 decimals");
    expect(read("007")).toContain("Money amount must not have leading zeros");
    expect(read("-3")).toContain("Money amount must be in the format of <number> or <number>.<number>");
    expect(read("")).toContain("Money amount must be in the format of <number> or <number>.<number>");
    expect(read("99999999999999999999")).toContain("Money amount is too large");
    expect(read("0")).toContain("A refund must give money back");
    expect(read("1", "soon")).toContain("end_action must be one of the following values: now, at-period-end");
    expect(read("1", "at-period-end")).toContain(`end_action "at-period-end" applies to subscriptions only`);
  });

  it("allows refunds up to what was paid minus earlier refunds", () => {
    const already = () => new Error("ALREADY");
    expect(() => checkRefundAmount(500, 1000, 500, already)).not.toThrow();
    expect(messageOf(() => checkRefundAmount(501, 1000, 500, already))).toContain("Refund amount (5.01 USD) cannot exceed the remaining refundable amount (5.00 USD)");
    expect(messageOf(() => checkRefundAmount(1, 1000, 1000, already))).toBe("ALREADY");
    expect(messageOf(() => checkRefundAmount(1, 0, 0, already))).toContain("remaining refundable amount (0.00 USD)");
    expect(() => checkRefundAmount(0, 0, 0, already)).not.toThrow();
    expect(formatUsd(123456)).toBe("1234.56");
    expect(formatUsd(5)).toBe("0.05");
  });
});
