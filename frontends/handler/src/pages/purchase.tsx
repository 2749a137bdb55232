/**
 * `/handler/purchase/<full_code>`: the hosted purchase page a `create-purchase-url` link opens. It validates the code,
 * shows the offer (or product) with its prices per currency and interval, the quantity when the offer is stackable,
 * and any conflict (already bought, another offer of the same group); then pays: `purchase-session` gives a client
 * secret, Stripe.js (loaded from the configured URL, see purchase/stripe-loader.ts) shows the card form and confirms.
 * In test mode (no Stripe account yet) a signed-in owner of the project completes it without payment (purchase/owner.ts).
 */
import { useEffect, useRef, useState } from "react";
import { Alert, Button, ErrorAlert, Spinner, TextField, loadRuntimeConfig, useAction, useLocation } from "@vestibule/ui";
import { AuthCard, AuthCardSkeleton } from "../layout.tsx";
import { once } from "../one-time.ts";
import { createPurchaseSession, durationText, formatAmount, intervalText, validateCode, type PurchaseCodeView } from "../purchase/offer.ts";
import { loadStripeJs, type StripeElements, type StripeJs } from "../purchase/stripe-loader.ts";
import { ownerAdminApp } from "../purchase/owner.ts";

function codeFromPath(pathname: string): string {
  const m = /\/purchase\/([^/]+)\/?$/.exec(pathname);
  return m ? decodeURIComponent(m[1]!) : "";
}

export default function Purchase() {
  const { pathname } = useLocation();
  const code = codeFromPath(pathname);
  const [view, setView] = useState<PurchaseCodeView | null>(null);
  const [loadError, setLoadError] = useState<unknown>(null);
  useEffect(() => {
    if (!code) return;
    once(`purchase:${code}`, () => validateCode(code)).then(setView, setLoadError);
  }, [code]);

  if (!code) {
    return (
      <AuthCard title="Purchase">
        <Alert kind="error">This purchase link has no code. Ask the seller for a new link.</Alert>
      </AuthCard>
    );
  }
  if (loadError) {
    return (
      <AuthCard title="This purchase link does not work">
        <ErrorAlert error={loadError} />
        <p className="vs-muted" style={{ margin: 0 }}>
          Purchase links expire and work once. Ask the seller for a new link.
        </p>
      </AuthCard>
    );
  }
  if (!view) return <AuthCardSkeleton />;
  return <PurchaseForm code={code} view={view} />;
}

type Step = { kind: "choose" } | { kind: "pay"; stripe: StripeJs; elements: StripeElements } | { kind: "done" };

function PurchaseForm({ code, view }: { code: string; view: PurchaseCodeView }) {
  const offer = view.offer;
  const prices = offer?.prices ?? [];
  const [priceId, setPriceId] = useState(prices[0]?.id ?? "");
  const [quantity, setQuantity] = useState("1");
  const [step, setStep] = useState<Step>({ kind: "choose" });
  const [payError, setPayError] = useState<string | null>(null);
  const cardSlot = useRef<HTMLDivElement>(null);
  const price = prices.find((p) => p.id === priceId);
  const qty = Number(quantity);
  const quantityError = offer?.stackable && (!Number.isInteger(qty) || qty < 1 || qty > 10_000) ? "Enter a whole number from 1 to 10000." : null;

  const [start, startState] = useAction(async () => {
    const config = await loadRuntimeConfig();
    if (!config.stripe) throw new Error("Payments are not configured on this server.");
    const clientSecret = await createPurchaseSession(code, priceId, offer?.stackable ? qty : 1);
    const factory = await loadStripeJs(config.stripe.jsUrl);
    const stripe = factory(config.stripe.publishableKey, view.stripeAccountId ? { stripeAccount: view.stripeAccountId } : undefined);
    setStep({ kind: "pay", stripe, elements: stripe.elements({ clientSecret }) });
  });
  useEffect(() => {
    if (step.kind !== "pay" || !cardSlot.current) return;
    const element = step.elements.create("payment");
    element.mount(cardSlot.current);
    return () => element.destroy();
  }, [step]);
  const [owner, setOwner] = useState<Awaited<ReturnType<typeof ownerAdminApp>> | "unknown">("unknown");
  useEffect(() => {
    if (!view.testMode) return;
    once(`purchase-owner:${view.projectId}`, () => ownerAdminApp(view.projectId).catch(() => null)).then(setOwner);
  }, [view.testMode, view.projectId]);
  const [testBuy, testBuyState] = useAction(async () => {
    if (!owner || owner === "unknown") return;
    await owner.testModePurchase({ priceId, fullCode: code, quantity: offer?.stackable ? qty : 1 });
    setStep({ kind: "done" });
  });
  const [pay, payState] = useAction(async () => {
    if (step.kind !== "pay") return;
    setPayError(null);
    const submitted = await step.elements.submit();
    if (submitted.error) return setPayError(submitted.error.message ?? "Check the card details.");
    const result = await step.stripe.confirmPayment({ elements: step.elements, redirect: "if_required", confirmParams: { return_url: location.href } });
    if (result.error) return setPayError(result.error.message ?? "The payment failed.");
    setStep({ kind: "done" });
  });

  if (!offer) {
    return (
      <AuthCard title="Purchase">
        <Alert kind="error">This purchase link names no offer. Ask the seller for a new link.</Alert>
      </AuthCard>
    );
  }
  if (step.kind === "done") {
    return (
      <AuthCard title="Payment complete">
        <Alert kind="success" title="Thank you!">
          You bought {offer.displayName}
          {offer.stackable && qty > 1 ? ` × ${qty}` : ""}. It will appear in your account in a moment; you can close this page.
        </Alert>
      </AuthCard>
    );
  }
  const blocked = view.alreadyBoughtNonStackable || !view.chargesEnabled || prices.length === 0;
  return (
    <AuthCard title={offer.displayName} subtitle={view.testMode ? "Test mode: nothing is charged." : undefined}>
      {offer.includedItems.length > 0 ? (
        <ul style={{ margin: 0, paddingLeft: "1.2rem" }} aria-label="Included">
          {offer.includedItems.map((i) => (
            <li key={i.id}>
              {i.quantity} × {i.id}
            </li>
          ))}
        </ul>
      ) : null}
      {view.alreadyBoughtNonStackable ? <Alert kind="warning">You already own {offer.displayName}, and it cannot be bought more than once.</Alert> : null}
      {view.conflicts.length > 0 ? (
        <Alert kind="warning">
          You already have {view.conflicts.map((c) => c.displayName).join(", ")} from the same group. Buying {offer.displayName} replaces {view.conflicts.length === 1 ? "it" : "them"}.
        </Alert>
      ) : null}
      {!view.chargesEnabled ? <Alert kind="error">This seller cannot accept payments yet. Try again later.</Alert> : null}
      {prices.length === 0 ? <Alert kind="error">This offer has no price that can be bought here.</Alert> : null}
      <fieldset disabled={step.kind !== "choose"} style={{ border: 0, padding: 0, margin: 0 }} className="vs-stack">
        <legend className="vs-label" style={{ marginBottom: 6 }}>
          Price
        </legend>
        {prices.map((p) => (
          <label key={p.id} className="vs-switch" style={{ alignItems: "flex-start" }}>
            <input type="radio" name="price" value={p.id} checked={p.id === priceId} onChange={() => setPriceId(p.id)} />
            <span>
              <span className="vs-label">
                {p.amounts.map((a) => formatAmount(a.amount, a.currency)).join(" · ") || "Free"} {intervalText(p.interval)}
              </span>
              {p.freeTrial ? <span className="vs-hint" style={{ display: "block" }}>Free for the first {durationText(p.freeTrial)}.</span> : null}
            </span>
          </label>
        ))}
        {offer.stackable ? <TextField label="Quantity" type="number" min={1} max={10000} value={quantity} onChange={setQuantity} error={quantityError ?? undefined} /> : null}
      </fieldset>
      {price && offer.stackable && !quantityError && qty > 1 ? (
        <p style={{ margin: 0 }}>
          Total: {price.amounts.map((a) => formatAmount(a.amount, a.currency, qty)).join(" · ")} {intervalText(price.interval)}
        </p>
      ) : null}
      <ErrorAlert error={startState.error ?? payState.error ?? testBuyState.error} />
      {view.testMode ? (
        owner === "unknown" ? (
          <Spinner label="Checking who you are…" />
        ) : owner ? (
          <Button variant="primary" block disabled={blocked || !price || quantityError !== null} loading={testBuyState.pending} onClick={() => void testBuy()}>
            Complete test purchase
          </Button>
        ) : (
          <Alert kind="info">This seller has not set up payments yet. Only the project's owners can complete a test purchase, signed in to the dashboard.</Alert>
        )
      ) : step.kind === "choose" ? (
        <Button variant="primary" block disabled={blocked || !price || quantityError !== null} loading={startState.pending} onClick={() => void start()}>
          Continue to payment
        </Button>
      ) : (
        <div className="vs-stack">
          <div ref={cardSlot} data-testid="card-slot" />
          {payError ? <Alert kind="error">{payError}</Alert> : null}
          <Button variant="primary" block loading={payState.pending} onClick={() => void pay()}>
            Pay {price ? price.amounts.map((a) => formatAmount(a.amount, a.currency, offer.stackable ? qty : 1))[0] : ""}
          </Button>
        </div>
      )}
      {startState.pending ? <Spinner label="Preparing the payment…" /> : null}
    </AuthCard>
  );
}
