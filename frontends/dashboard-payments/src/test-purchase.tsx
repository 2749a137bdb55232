/**
 * Test-mode purchase: pick an offer, a price and a user or team; the dashboard makes a purchase link for that customer
 * (create-purchase-url) and completes it without Stripe (test-mode-purchase-session). The link itself is shown too,
 * to try the hosted purchase page with a test card.
 */
import { useState, type FormEvent } from "react";
import type { StackAdminApp } from "@vestibule/js";
import { Alert, Button, CopyField, ErrorAlert, Select, TextField, useAction } from "@vestibule/ui";
import { intervalLabel, type OfferDef } from "./catalog-config.ts";

export function TestPurchase({ adminApp, offers }: { adminApp: StackAdminApp; offers: readonly OfferDef[] }) {
  const buyable = offers.filter((o) => o.customerType === "user" || o.customerType === "team");
  const [offerId, setOfferId] = useState("");
  const offer = buyable.find((o) => o.id === offerId) ?? buyable[0];
  const [priceId, setPriceId] = useState("");
  const price = offer?.prices.find((p) => p.id === priceId) ?? offer?.prices[0];
  const [customerId, setCustomerId] = useState("");
  const [quantity, setQuantity] = useState("1");
  const [url, setUrl] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);

  const purchaseUrl = async (): Promise<string> => {
    const id = customerId.trim();
    const customer = offer!.customerType === "team" ? await adminApp.getTeam(id) : await adminApp.getUser(id);
    if (!customer) throw new Error(`No ${offer!.customerType} with the id ${id}.`);
    return customer.createCheckoutUrl({ offerId: offer!.id });
  };
  const [makeLink, linkState] = useAction(async () => {
    setDone(null);
    setUrl(await purchaseUrl());
  });
  const [buy, buyState] = useAction(async () => {
    setDone(null);
    const link = url ?? (await purchaseUrl());
    const fullCode = decodeURIComponent(new URL(link, location.href).pathname.split("/").filter(Boolean).pop() ?? "");
    await adminApp.testModePurchase({ priceId: price!.id, fullCode, quantity: Number(quantity) });
    setUrl(null);
    setDone(`Test purchase of ${offer!.displayName} completed for ${offer!.customerType} ${customerId.trim()}.`);
  });
  const qty = Number(quantity);
  const quantityError = !Number.isInteger(qty) || qty < 1 ? "Enter a whole number of at least 1." : null;
  const ready = !!offer && !!price && customerId.trim() !== "" && !quantityError;
  if (buyable.length === 0) return <Alert kind="info">Add an offer for users or teams first (Items & offers).</Alert>;
  return (
    <form className="vs-stack" noValidate aria-label="Test-mode purchase" onSubmit={(e: FormEvent) => { e.preventDefault(); if (ready) void buy(); }}>
      <p className="vs-muted" style={{ margin: 0 }}>
        Grants the offer as if it were paid, without Stripe. Transactions show it as a test.
      </p>
      <div className="vs-grid-2">
        <Select label="Offer" value={offer?.id ?? ""} options={buyable.map((o) => ({ value: o.id, label: `${o.displayName} (${o.customerType})` }))} onChange={(v) => { setOfferId(v); setPriceId(""); setUrl(null); }} />
        <Select label="Price" value={price?.id ?? ""} options={(offer?.prices ?? []).map((p) => ({ value: p.id, label: `${p.amounts || "included"} ${intervalLabel(p.interval)}` }))} onChange={setPriceId} />
        <TextField label={offer?.customerType === "team" ? "Team id" : "User id"} value={customerId} onChange={(v) => { setCustomerId(v); setUrl(null); }} />
        {offer?.stackable ? <TextField label="Quantity" inputMode="numeric" value={quantity} onChange={setQuantity} error={quantityError} /> : null}
      </div>
      {offer && offer.prices.length === 0 ? <Alert kind="warning">This offer has no price to buy.</Alert> : null}
      <ErrorAlert error={linkState.error ?? buyState.error} />
      {done ? <Alert kind="success">{done}</Alert> : null}
      {url ? (
        <>
          <CopyField label="Purchase link" value={url} />
          <p className="vs-hint" style={{ margin: 0 }}>
            Open it to see the hosted purchase page. With Stripe set up, pay with the test card 4242 4242 4242 4242.
          </p>
        </>
      ) : null}
      <div className="vs-row">
        <Button type="submit" variant="primary" loading={buyState.pending} disabled={!ready}>
          Complete test purchase
        </Button>
        <Button onClick={() => void makeLink()} loading={linkState.pending} disabled={!offer || customerId.trim() === ""}>
          Make a purchase link
        </Button>
      </div>
    </form>
  );
}
