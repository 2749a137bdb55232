/**
 * The rules of an admin refund (latest-sdk.md E `refundTransaction`), pure: the amount is a USD money amount (the
 * spec's money rules), never above what was paid minus the earlier refunds; `end_action` is "now", "at-period-end"
 * (subscriptions only) or absent (money only); a refund must move money or end the purchase.
 */
import { knownError } from "@vestibule/shared/errors";
import { moneyAmountProblem } from "../offers/offer-rules.ts";
import { minorUnits } from "../stripe/stripe-settings.ts";

export type EndAction = "now" | "at-period-end";

export interface RefundRequest {
  readonly oneTime: boolean;
  readonly cents: number;
  readonly endAction: EndAction | null;
}

const invalid = (message: string) => knownError("SCHEMA_ERROR", { message });

/** USD cents as a money amount ("12.5" → "12.50"). */
export function formatUsd(cents: number): string {
  return `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, "0")}`;
}

/** Validates the request's own fields (before any purchase is read). */
export function readRefundRequest(req: { type: string; amountUsd: string; endAction: string }): RefundRequest {
  const oneTime = req.type !== "subscription";
  const problem = moneyAmountProblem(req.amountUsd, "USD");
  if (problem) throw invalid(`amount_usd: ${problem}`);
  const cents = minorUnits(req.amountUsd, 2);
  if (!Number.isSafeInteger(cents)) throw invalid("amount_usd: Money amount is too large");
  let endAction: EndAction | null = null;
  if (req.endAction === "now" || req.endAction === "at-period-end") endAction = req.endAction;
  else if (req.endAction) throw invalid(`end_action must be one of the following values: now, at-period-end`);
  if (oneTime && endAction === "at-period-end") {
    throw invalid(`end_action "at-period-end" applies to subscriptions only; a one-time purchase can only end "now"`);
  }
  if (cents === 0 && endAction === null) throw invalid("A refund must give money back (amount_usd above 0) or end the purchase (end_action)");
  return { oneTime, cents, endAction };
}

/** The amount check against what was paid (`paidCents`) and refunded before (`refundedCents`) on that payment. */
export function checkRefundAmount(cents: number, paidCents: number, refundedCents: number, alreadyRefunded: () => Error): void {
  if (cents === 0) return;
  const remaining = Math.max(0, paidCents - refundedCents);
  if (paidCents > 0 && remaining === 0) throw alreadyRefunded();
  if (cents > remaining) {
    throw invalid(`Refund amount (${formatUsd(cents)} USD) cannot exceed the remaining refundable amount (${formatUsd(remaining)} USD)`);
  }
}
