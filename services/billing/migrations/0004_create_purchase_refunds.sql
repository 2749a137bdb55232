-- Refunds of purchases (admin `refundTransaction`): each row is one refund transaction, partial or full. The money
-- refunded so far on a purchase (or on one subscription invoice) is the sum of its rows; a refund never exceeds what
-- was paid minus the earlier refunds (checked under the purchase's row lock).
CREATE TABLE purchase_refunds (
  id uuid PRIMARY KEY,
  project_id text NOT NULL,
  purchase_id uuid NOT NULL REFERENCES purchases (id) ON DELETE CASCADE,
  -- The Stripe invoice a subscription refund is taken from; null for one-time purchases.
  invoice_id text,
  amount_usd_cents bigint NOT NULL CHECK (amount_usd_cents >= 0),
  end_action text CHECK (end_action IN ('now', 'at-period-end')),
  stripe_refund_id text UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX purchase_refunds_purchase ON purchase_refunds (purchase_id, invoice_id);
CREATE INDEX purchase_refunds_project_time ON purchase_refunds (project_id, created_at DESC, id DESC);
