-- Each project's connected Stripe account (created by /internal/payments/setup).
CREATE TABLE stripe_accounts (
  project_id text PRIMARY KEY,
  account_id text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now()
);
