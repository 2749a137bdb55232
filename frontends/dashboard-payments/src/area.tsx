/**
 * Payments of a project: the Stripe account (onboarding link, account state), items and offers (config editor),
 * customers' item quantities, the transactions table and test-mode purchases.
 */
import { useState } from "react";
import type { StackAdminApp } from "@vestibule/js";
import { Alert, Button, Card, ErrorAlert, Skeleton, TabList, tabPanelProps, useAction, useLoad, useTitle, type AreaProps } from "@vestibule/ui";
import { Catalog, useCatalog } from "./catalog.tsx";
import { Customers } from "./customers.tsx";
import { TestPurchase } from "./test-purchase.tsx";
import { Transactions } from "./transactions.tsx";

type Tab = "setup" | "catalog" | "customers" | "transactions" | "test";

const yes = (ok: boolean, label: string) => <span className={ok ? "vs-badge vs-badge-ok" : "vs-badge"}>{label}: {ok ? "yes" : "not yet"}</span>;

function Setup({ adminApp }: { adminApp: StackAdminApp }) {
  const info = useLoad(() => adminApp.getStripeAccountInfo(), [adminApp]);
  const [setup, setupState] = useAction(async () => {
    const { url } = await adminApp.setupPayments();
    location.assign(url);
  });
  if (info.status === "loading") return <Skeleton height={96} />;
  const a = info.value;
  return (
    <div className="vs-stack">
      <ErrorAlert error={info.error ?? setupState.error} />
      {a ? (
        <>
          <p style={{ margin: 0 }}>
            Stripe account <code className="vs-code">{a.account_id}</code>
          </p>
          <div className="vs-row" data-testid="stripe-state">
            {yes(a.details_submitted, "Details submitted")}
            {yes(a.charges_enabled, "Charges enabled")}
            {yes(a.payouts_enabled, "Payouts enabled")}
          </div>
          {a.charges_enabled ? <Alert kind="success">Customers can pay with cards.</Alert> : <Alert kind="warning">Finish the Stripe onboarding before customers can pay.</Alert>}
        </>
      ) : info.status === "ok" ? (
        <Alert kind="info">No Stripe account yet. Set up payments to create one and go through Stripe's onboarding.</Alert>
      ) : null}
      <div className="vs-row">
        <Button variant={a?.charges_enabled ? "default" : "primary"} loading={setupState.pending} onClick={() => void setup()}>
          {a ? (a.details_submitted ? "Update Stripe details" : "Continue Stripe onboarding") : "Set up payments"}
        </Button>
      </div>
    </div>
  );
}

export default function PaymentsArea({ adminApp, mode }: AreaProps) {
  useTitle("Payments · Vestibule");
  const [tab, setTab] = useState<Tab>("setup");
  const catalog = useCatalog(adminApp);
  const tabs = [
    { id: "setup", title: "Stripe" },
    { id: "catalog", title: "Items & offers" },
    { id: "customers", title: "Customers" },
    { id: "transactions", title: "Transactions" },
    { id: "test", title: "Test purchase" },
  ];
  return (
    <div className="vs-stack">
      <h1 style={{ margin: 0, fontSize: "1.5rem" }}>Payments</h1>
      <TabList label="Payments sections" idPrefix="payments" tabs={tabs} active={tab} onSelect={(id) => { setTab(id as Tab); if (id !== "catalog") void catalog.reload(); }} />
      <Card {...tabPanelProps("payments", tab)} style={{ minHeight: 240 }}>
        {tab === "setup" ? <Setup adminApp={adminApp} /> : null}
        {tab === "catalog" ? <Catalog adminApp={adminApp} /> : null}
        {tab === "customers" ? <Customers adminApp={adminApp} items={catalog.value?.items ?? []} /> : null}
        {tab === "transactions" ? <Transactions adminApp={adminApp} /> : null}
        {tab === "test" ? <TestPurchase adminApp={adminApp} offers={catalog.value?.offers ?? []} /> : null}
      </Card>
      {mode === "development" ? <Alert kind="info">Development mode: payments go to the local Stripe-compatible server; test card 4242 4242 4242 4242 pays, 4000 0000 0000 0002 is declined.</Alert> : null}
    </div>
  );
}
