-- Tables every service schema has, created by the shared runtime before the service's own migrations.

-- Transactional outbox: an event row is written in the same transaction as the state change it describes,
-- and the relay publishes it to the bus afterwards (at-least-once; the bus de-duplicates on id).
CREATE TABLE outbox (
  seq bigserial PRIMARY KEY,
  id uuid NOT NULL UNIQUE,
  subject text NOT NULL,
  envelope bytea NOT NULL,
  request_id text,
  created_at timestamptz NOT NULL DEFAULT now(),
  published_at timestamptz,
  attempts integer NOT NULL DEFAULT 0,
  last_error text
);
CREATE INDEX outbox_unpublished ON outbox (seq) WHERE published_at IS NULL;

-- Idempotent consumers: a delivery is handled only if its event id was not yet recorded for that consumer,
-- in the same transaction as the handler's writes.
CREATE TABLE processed_events (
  consumer text NOT NULL,
  event_id uuid NOT NULL,
  processed_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (consumer, event_id)
);

-- Envelope encryption: data keys, each wrapped (AES-256-GCM) by a master key from configuration.
-- Rotating the master key re-wraps these few rows; the data they protect is not rewritten.
CREATE TABLE data_keys (
  id uuid PRIMARY KEY,
  master_key_id text NOT NULL,
  wrapped_key bytea NOT NULL,
  active boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now()
);
