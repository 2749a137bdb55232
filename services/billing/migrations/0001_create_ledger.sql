-- Item quantity changes (the ledger) and a maintained running total per customer item.
CREATE TABLE item_quantity_changes (
  id uuid PRIMARY KEY,
  project_id text NOT NULL,
  customer_type text NOT NULL CHECK (customer_type IN ('user', 'team', 'custom')),
  customer_id text NOT NULL,
  item_id text NOT NULL,
  delta bigint NOT NULL,
  expires_at timestamptz,
  description text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX item_quantity_changes_customer ON item_quantity_changes (project_id, customer_type, customer_id, item_id, created_at);
-- Only the changes that expire are summed at read time; the others live in item_balances.quantity.
CREATE INDEX item_quantity_changes_expiring ON item_quantity_changes (project_id, customer_type, customer_id, item_id, expires_at)
  INCLUDE (delta) WHERE expires_at IS NOT NULL;
CREATE INDEX item_quantity_changes_project_time ON item_quantity_changes (project_id, created_at DESC, id DESC);

-- One row per customer item: the sum of its non-expiring changes. The row is also the lock that serialises
-- concurrent changes of that customer item (SELECT ... FOR UPDATE).
CREATE TABLE item_balances (
  project_id text NOT NULL,
  customer_type text NOT NULL,
  customer_id text NOT NULL,
  item_id text NOT NULL,
  quantity bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (project_id, customer_type, customer_id, item_id)
);
