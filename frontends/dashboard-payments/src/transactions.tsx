/** Transactions (purchases, subscriptions, quantity changes) with filters by type and customer type, paged by cursor. */
import { useState } from "react";
import type { StackAdminApp } from "@vestibule/js";
import { CursorTable, Select } from "@vestibule/ui";

type Row = {
  id: string;
  type: string;
  created_at_millis: number;
  customer_type: string;
  customer_id: string;
  quantity: number;
  test_mode: boolean;
  offer_display_name: string | null;
  price: Record<string, unknown> | null;
  status: string | null;
  item_id?: string;
  description?: string;
};

const TYPE_LABEL: Record<string, string> = { subscription: "Subscription", one_time: "One-time purchase", item_quantity_change: "Quantity change" };

function priceText(price: Record<string, unknown> | null): string {
  if (!price) return "—";
  const amounts = Object.entries(price).filter(([k]) => /^[A-Z]{3}$/.test(k)).map(([k, v]) => `${k} ${String(v)}`);
  const interval = Array.isArray(price.interval) ? ` / ${price.interval[0] === 1 ? "" : `${String(price.interval[0])} `}${String(price.interval[1])}` : "";
  return amounts.length ? amounts.join(", ") + interval : "—";
}

export function Transactions({ adminApp }: { adminApp: StackAdminApp }) {
  const [type, setType] = useState("");
  const [customerType, setCustomerType] = useState("");
  return (
    <div className="vs-stack">
      <div className="vs-grid-2">
        <Select label="Type" value={type} onChange={setType} options={[{ value: "", label: "All types" }, { value: "one_time", label: "One-time purchases" }, { value: "subscription", label: "Subscriptions" }, { value: "item_quantity_change", label: "Quantity changes" }]} />
        <Select label="Customer type" value={customerType} onChange={setCustomerType} options={[{ value: "", label: "All customers" }, { value: "user", label: "Users" }, { value: "team", label: "Teams" }, { value: "custom", label: "Custom ids" }]} />
      </div>
      <CursorTable<Row>
        caption="Transactions"
        pageSize={20}
        resetKey={`${type}|${customerType}`}
        rowKey={(t) => t.id}
        empty="No transactions match these filters."
        fetchPage={async (cursor, limit) => {
          const r = await adminApp.listTransactions({
            limit,
            ...(cursor ? { cursor } : {}),
            ...(type ? { type: type as "one_time" } : {}),
            ...(customerType ? { customerType: customerType as "user" } : {}),
          });
          return { items: r.transactions as Row[], nextCursor: r.nextCursor };
        }}
        columns={[
          { key: "d", header: "Date", render: (t) => new Date(t.created_at_millis).toLocaleString() },
          { key: "t", header: "Type", render: (t) => <>{TYPE_LABEL[t.type] ?? t.type}{t.test_mode ? <span className="vs-badge" style={{ marginLeft: 6 }}>Test</span> : null}</> },
          { key: "c", header: "Customer", render: (t) => <span title={t.customer_id}>{t.customer_type}: <code className="vs-code">{t.customer_id.length > 14 ? `${t.customer_id.slice(0, 12)}…` : t.customer_id}</code></span> },
          { key: "w", header: "What", render: (t) => t.offer_display_name ?? t.item_id ?? "—" },
          { key: "q", header: "Quantity", render: (t) => (t.quantity > 0 && t.type === "item_quantity_change" ? `+${t.quantity}` : String(t.quantity)) },
          { key: "p", header: "Price", render: (t) => priceText(t.price), hideOnPhone: true },
          { key: "s", header: "Status", render: (t) => t.status ?? "—", hideOnPhone: true },
        ]}
      />
    </div>
  );
}
