-- The Stripe customer of each billing customer (user or team), on the project's connected account. Created with the
-- first setup intent or subscription purchase; one per customer (a concurrent creation's customer loses).
CREATE TABLE stripe_customers (
  project_id text NOT NULL,
  customer_type text NOT NULL CHECK (customer_type IN ('user', 'team', 'custom')),
  customer_id text NOT NULL,
  stripe_account_id text NOT NULL,
  stripe_customer_id text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, customer_type, customer_id)
);
CREATE INDEX stripe_customers_stripe_id ON stripe_customers (stripe_customer_id);
