-- Purchase codes behind the hosted purchase page: only the SHA-256 of the random part is stored.
CREATE TABLE purchase_codes (
  id uuid PRIMARY KEY,
  project_id text NOT NULL,
  code_hash text NOT NULL UNIQUE,
  customer_type text NOT NULL,
  customer_id text NOT NULL,
  offer_id text,
  offer jsonb NOT NULL,
  return_url text,
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Purchases: one-time purchases and subscriptions, paid (Stripe), granted by a server or made in test mode.
CREATE TABLE purchases (
  id uuid PRIMARY KEY,
  project_id text NOT NULL,
  customer_type text NOT NULL,
  customer_id text NOT NULL,
  offer_id text,
  offer jsonb NOT NULL,
  price_id text,
  quantity integer NOT NULL DEFAULT 1,
  kind text NOT NULL CHECK (kind IN ('one_time', 'subscription')),
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'canceled', 'refunded')),
  creation_source text NOT NULL CHECK (creation_source IN ('purchase_page', 'test_mode', 'api_grant')),
  test_mode boolean NOT NULL DEFAULT false,
  current_period_start timestamptz,
  current_period_end timestamptz,
  cancel_at_period_end boolean NOT NULL DEFAULT false,
  ended_at timestamptz,
  stripe_subscription_id text UNIQUE,
  stripe_payment_intent_id text UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX purchases_customer ON purchases (project_id, customer_type, customer_id, created_at);
CREATE INDEX purchases_project_time ON purchases (project_id, created_at DESC, id DESC);

-- Stripe webhook events already handled (idempotency by Stripe event id).
CREATE TABLE stripe_events (
  id text PRIMARY KEY,
  type text NOT NULL,
  received_at timestamptz NOT NULL DEFAULT now()
);
