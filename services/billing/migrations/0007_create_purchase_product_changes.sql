-- A subscription moved to another product of its product line (switchSubscription, or a switch Stripe reports that
-- was not recorded here): each row is one "product-change" transaction of the current SDK. The purchase row itself
-- carries the product it has now; this keeps what it had before (the purchase transaction shows the product bought).
CREATE TABLE purchase_product_changes (
  id uuid PRIMARY KEY,
  project_id text NOT NULL,
  purchase_id uuid NOT NULL REFERENCES purchases (id) ON DELETE CASCADE,
  from_offer_id text,
  from_offer jsonb NOT NULL,
  from_price_id text,
  from_quantity integer NOT NULL,
  to_offer_id text,
  to_offer jsonb NOT NULL,
  to_price_id text,
  to_quantity integer NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX purchase_product_changes_project_time ON purchase_product_changes (project_id, created_at DESC, id DESC);
CREATE INDEX purchase_product_changes_purchase ON purchase_product_changes (purchase_id, created_at);
