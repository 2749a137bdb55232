-- Impersonation tickets: a project admin's single-use, 60-second permission to open an impersonation session of a
-- user in the app ("Open the app as this user"). Stored only as SHA-256; exchanging a ticket deletes its row in the
-- same statement that reads it, so two exchanges of one ticket give one session.
CREATE TABLE impersonation_tickets (
  ticket_hash text PRIMARY KEY,
  project_id text NOT NULL,
  user_id uuid NOT NULL,
  -- Lifetime of the impersonation session the exchange opens.
  session_lifetime_ms bigint NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL
);
CREATE INDEX impersonation_tickets_expires_at ON impersonation_tickets (expires_at);
