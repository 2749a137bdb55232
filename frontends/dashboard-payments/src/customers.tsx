/**
 * A customer's item quantities: look up a user, team or custom customer's quantity of an item, and change it by a
 * delta (with a description and an optional expiry). Negative results are allowed here (an admin's correction).
 */
import { useState, type FormEvent } from "react";
import type { StackAdminApp } from "@vestibule/js";
import { Alert, Button, ErrorAlert, Select, TextField, useAction } from "@vestibule/ui";
import type { ItemDef } from "./catalog-config.ts";

type CustomerType = "user" | "team" | "custom";
const customerOf = (type: CustomerType, id: string) => (type === "user" ? { userId: id } : type === "team" ? { teamId: id } : { customCustomerId: id });

export function Customers({ adminApp, items }: { adminApp: StackAdminApp; items: readonly ItemDef[] }) {
  const [type, setType] = useState<CustomerType>("user");
  const [customerId, setCustomerId] = useState("");
  const [itemId, setItemId] = useState("");
  const [delta, setDelta] = useState("");
  const [description, setDescription] = useState("");
  const [expires, setExpires] = useState("");
  const [shown, setShown] = useState<{ displayName: string; quantity: number; key: string } | null>(null);
  const [changed, setChanged] = useState<string | null>(null);
  const selectedItem = itemId || items.find((i) => i.customerType === type)?.id || "";
  const key = `${type}/${customerId.trim()}/${selectedItem}`;

  const [lookUp, lookUpState] = useAction(async () => {
    const item = await adminApp.getItem({ itemId: selectedItem, ...customerOf(type, customerId.trim()) } as Parameters<StackAdminApp["getItem"]>[0]);
    setShown({ displayName: item.displayName, quantity: item.quantity, key });
  });
  const deltaNumber = Number(delta);
  const deltaError = delta !== "" && (!Number.isInteger(deltaNumber) || deltaNumber === 0) ? "Enter a whole number other than 0 (negative to take away)." : null;
  const [change, changeState] = useAction(async () => {
    await adminApp.createItemQuantityChange({
      ...customerOf(type, customerId.trim()),
      itemId: selectedItem,
      quantity: deltaNumber,
      ...(description.trim() ? { description: description.trim() } : {}),
      ...(expires ? { expiresAt: new Date(expires).toISOString() } : {}),
    } as Parameters<StackAdminApp["createItemQuantityChange"]>[0]);
    setChanged(`Changed by ${deltaNumber > 0 ? "+" : ""}${deltaNumber}.`);
    setDelta("");
    setDescription("");
    await lookUp();
  });
  const ready = customerId.trim() !== "" && selectedItem !== "";
  return (
    <div className="vs-stack">
      {items.length === 0 ? <Alert kind="info">Define an item first (Items & offers).</Alert> : null}
      <form className="vs-stack" noValidate aria-label="Look up a customer's item" onSubmit={(e: FormEvent) => { e.preventDefault(); setChanged(null); if (ready) void lookUp(); }}>
        <div className="vs-grid-2">
          <Select label="Customer type" value={type} options={[{ value: "user", label: "User" }, { value: "team", label: "Team" }, { value: "custom", label: "Custom id" }]} onChange={(t) => { setType(t as CustomerType); setItemId(""); setShown(null); }} />
          <TextField label={type === "user" ? "User id" : type === "team" ? "Team id" : "Custom customer id"} value={customerId} onChange={(v) => { setCustomerId(v); setShown(null); }} />
          <Select label="Item" value={selectedItem} options={items.filter((i) => i.customerType === type).map((i) => ({ value: i.id, label: `${i.displayName} (${i.id})` }))} onChange={(v) => { setItemId(v); setShown(null); }} />
        </div>
        <ErrorAlert error={lookUpState.error} />
        <div className="vs-row">
          <Button type="submit" loading={lookUpState.pending} disabled={!ready}>
            Look up quantity
          </Button>
        </div>
      </form>
      {shown && shown.key === key ? (
        <div className="vs-stack">
          <p style={{ margin: 0, fontSize: "1.1rem" }} data-testid="item-quantity">
            {shown.displayName}: <strong>{shown.quantity}</strong>
          </p>
          {changed ? <Alert kind="success">{changed}</Alert> : null}
          <form className="vs-stack" noValidate aria-label="Change the quantity" onSubmit={(e: FormEvent) => { e.preventDefault(); if (delta !== "" && !deltaError) void change(); }}>
            <div className="vs-grid-2">
              <TextField label="Change by" inputMode="numeric" value={delta} onChange={setDelta} error={deltaError} hint="Positive adds, negative takes away." />
              <TextField label="Description (optional)" value={description} onChange={setDescription} />
              <TextField label="Expires (optional)" type="datetime-local" value={expires} onChange={setExpires} />
            </div>
            <ErrorAlert error={changeState.error} />
            <div className="vs-row">
              <Button type="submit" variant="primary" loading={changeState.pending} disabled={delta === "" || deltaError !== null}>
                Change quantity
              </Button>
            </div>
          </form>
        </div>
      ) : null}
    </div>
  );
}
