/**
 * Items and offers (products) of the project's config. Saving writes a config override (`payments.items.<id>`,
 * `payments.offers.<id>`); the form checks ids and amounts first, and the API's own validation message is shown as
 * it comes (plain sentences) when it refuses the config.
 */
import { useState, type FormEvent } from "react";
import type { StackAdminApp } from "@vestibule/js";
import { Alert, Button, ErrorAlert, Select, Switch, Table, TextArea, TextField, useAction, useLoad } from "@vestibule/ui";
import { EMPTY_OFFER, idError, intervalLabel, offerFormErrors, offerFromForm, paymentsOf, type Json, type OfferForm } from "./catalog-config.ts";

const CUSTOMER_TYPES = [
  { value: "user", label: "User" },
  { value: "team", label: "Team" },
  { value: "custom", label: "Custom id" },
];
const INTERVALS = [
  { value: "one-time", label: "One-time" },
  { value: "day", label: "Per day" },
  { value: "week", label: "Per week" },
  { value: "month", label: "Per month" },
  { value: "year", label: "Per year" },
];

export function useCatalog(adminApp: StackAdminApp) {
  return useLoad(async () => {
    const project = await adminApp.getProject();
    const config = (await project.getConfig()) as Json;
    return { project, ...paymentsOf(config) };
  }, [adminApp]);
}

export function Catalog({ adminApp }: { adminApp: StackAdminApp }) {
  const catalog = useCatalog(adminApp);
  const [item, setItem] = useState({ id: "", displayName: "", customerType: "user" });
  const [itemTouched, setItemTouched] = useState(false);
  const [offer, setOffer] = useState<OfferForm>(EMPTY_OFFER);
  const [offerTouched, setOfferTouched] = useState(false);
  const [json, setJson] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);

  const [saveItem, saveItemState] = useAction(async () => {
    await catalog.value!.project.updateConfig({ [`payments.items.${item.id}`]: { displayName: item.displayName.trim(), customerType: item.customerType } });
    setSaved(`Item ${item.id} saved.`);
    setItem({ id: "", displayName: "", customerType: item.customerType });
    setItemTouched(false);
    await catalog.reload();
  });
  const offerErrors = offerFormErrors(offer);
  const [saveOffer, saveOfferState] = useAction(async () => {
    let value: Json;
    if (json !== null) {
      try {
        value = JSON.parse(json) as Json;
      } catch {
        throw new Error("The offer JSON is not valid JSON.");
      }
    } else value = offerFromForm(offer);
    await catalog.value!.project.updateConfig({ [`payments.offers.${offer.id}`]: value });
    setSaved(`Offer ${offer.id} saved.`);
    setOffer(EMPTY_OFFER);
    setJson(null);
    setOfferTouched(false);
    await catalog.reload();
  });
  const set = <K extends keyof OfferForm>(k: K) => (v: OfferForm[K]) => setOffer({ ...offer, [k]: v });
  const itemIdError = idError(item.id);
  const v = catalog.value;
  return (
    <div className="vs-stack">
      <ErrorAlert error={catalog.error} />
      {saved ? <Alert kind="success">{saved}</Alert> : null}
      <h2 style={{ margin: 0, fontSize: "1.1rem" }}>Items</h2>
      <Table
        caption="Items"
        rows={v?.items ?? []}
        loadingRows={catalog.status === "loading" ? 2 : 0}
        rowKey={(i) => i.id}
        empty="No items yet. An item is something a customer has a quantity of (credits, seats, a feature flag)."
        columns={[
          { key: "id", header: "Id", render: (i) => <code className="vs-code">{i.id}</code> },
          { key: "n", header: "Display name", render: (i) => i.displayName },
          { key: "t", header: "Customer type", render: (i) => i.customerType },
        ]}
      />
      <form className="vs-stack" noValidate aria-label="Add an item" onSubmit={(e: FormEvent) => { e.preventDefault(); setItemTouched(true); if (!itemIdError && item.displayName.trim()) void saveItem(); }}>
        <div className="vs-grid-2">
          <TextField label="Item id" value={item.id} onChange={(id) => setItem({ ...item, id })} error={itemTouched ? itemIdError : null} />
          <TextField label="Item display name" value={item.displayName} onChange={(displayName) => setItem({ ...item, displayName })} error={itemTouched && !item.displayName.trim() ? "Enter a display name." : null} />
          <Select label="Item customer type" value={item.customerType} options={CUSTOMER_TYPES} onChange={(customerType) => setItem({ ...item, customerType })} />
        </div>
        <ErrorAlert error={saveItemState.error} />
        <div className="vs-row">
          <Button type="submit" loading={saveItemState.pending} disabled={!v}>
            Save item
          </Button>
        </div>
      </form>

      <h2 style={{ margin: "16px 0 0", fontSize: "1.1rem" }}>Offers</h2>
      <Table
        caption="Offers"
        rows={v?.offers ?? []}
        loadingRows={catalog.status === "loading" ? 2 : 0}
        rowKey={(o) => o.id}
        empty="No offers yet. An offer is what customers buy: prices and the items it includes."
        columns={[
          { key: "id", header: "Id", render: (o) => <code className="vs-code">{o.id}</code> },
          { key: "n", header: "Display name", render: (o) => o.displayName },
          { key: "t", header: "Customer", render: (o) => o.customerType, hideOnPhone: true },
          { key: "p", header: "Prices", render: (o) => o.prices.map((p) => `${p.amounts || "included"} ${intervalLabel(p.interval)}`).join("; ") || "—" },
          { key: "g", header: "Group", render: (o) => o.groupId ?? "—", hideOnPhone: true },
          { key: "e", header: <span className="vs-sr-only">Edit</span>, render: (o) => <Button small onClick={() => { setOffer({ ...EMPTY_OFFER, id: o.id }); setJson(JSON.stringify(o.raw, null, 2)); }}>Edit</Button> },
        ]}
      />
      <form className="vs-stack" noValidate aria-label="Add or edit an offer" onSubmit={(e: FormEvent) => { e.preventDefault(); setOfferTouched(true); if (json !== null ? !idError(offer.id) : Object.keys(offerErrors).length === 0) void saveOffer(); }}>
        <div className="vs-grid-2">
          <TextField label="Offer id" value={offer.id} onChange={set("id")} error={offerTouched ? offerErrors.id : null} />
          {json === null ? (
            <>
              <TextField label="Offer display name" value={offer.displayName} onChange={set("displayName")} error={offerTouched ? offerErrors.displayName : null} />
              <Select label="Offer customer type" value={offer.customerType} options={CUSTOMER_TYPES} onChange={set("customerType")} />
              <Select label="Group" value={offer.groupId} options={[{ value: "", label: "No group" }, ...(v?.groups ?? []).map((g) => ({ value: g, label: g }))]} onChange={set("groupId")} hint="Offers of one group exclude each other: buying one replaces the other." />
              <TextField label="Price id" value={offer.priceId} onChange={set("priceId")} error={offerTouched ? offerErrors.priceId : null} />
              <TextField label="Currency" value={offer.currency} onChange={(c) => set("currency")(c.toUpperCase())} error={offerTouched ? offerErrors.currency : null} />
              <TextField label="Amount" inputMode="decimal" value={offer.amount} onChange={set("amount")} error={offerTouched ? offerErrors.amount : null} />
              <Select label="Billing interval" value={offer.interval} options={INTERVALS} onChange={set("interval")} />
              <Select label="Included item" value={offer.itemId} options={[{ value: "", label: "None" }, ...(v?.items ?? []).map((i) => ({ value: i.id, label: `${i.displayName} (${i.id})` }))]} onChange={set("itemId")} />
              {offer.itemId ? <TextField label="Included quantity" inputMode="numeric" value={offer.itemQuantity} onChange={set("itemQuantity")} error={offerTouched ? offerErrors.itemQuantity : null} /> : null}
            </>
          ) : null}
        </div>
        {json === null ? (
          <div className="vs-row">
            <Switch label="Stackable" description="A customer may buy it more than once (with a quantity)." checked={offer.stackable} onChange={set("stackable")} />
            <Switch label="Server only" description="Only your server can create purchase links for it." checked={offer.serverOnly} onChange={set("serverOnly")} />
          </div>
        ) : (
          <TextArea label="Offer (JSON, as the config stores it)" rows={12} value={json} onChange={setJson} hint="Every field: displayName, customerType, groupId, isAddOnTo, freeTrial, serverOnly, stackable, prices, includedItems." />
        )}
        <ErrorAlert error={saveOfferState.error} />
        <div className="vs-row">
          <Button type="submit" variant="primary" loading={saveOfferState.pending} disabled={!v}>
            Save offer
          </Button>
          <Button onClick={() => setJson(json === null ? JSON.stringify(offerFromForm(offer), null, 2) : null)}>{json === null ? "Edit as JSON" : "Back to the form"}</Button>
        </div>
      </form>
    </div>
  );
}
