-- Scheduled sends and the e-mail outbox of the current SDK (2.8.108).
-- `scheduled_at`: when a send asked to be delivered (NULL = at once); the row waits in the durable queue with
-- `next_attempt_at` = scheduled_at, so it survives restarts. `paused`: an admin paused it (not claimed until resumed).
-- `cancelled`: an admin cancelled it before delivery (its bodies are dropped).
ALTER TABLE emails
  ADD COLUMN scheduled_at timestamptz,
  ADD COLUMN paused boolean NOT NULL DEFAULT false,
  ADD COLUMN updated_at timestamptz NOT NULL DEFAULT now();
ALTER TABLE emails DROP CONSTRAINT emails_status_check;
ALTER TABLE emails ADD CONSTRAINT emails_status_check CHECK (status IN ('queued', 'sent', 'failed', 'cancelled'));
-- Delivery statistics (`GET /emails/delivery-info`).
CREATE INDEX emails_project_sent ON emails (project_id, sent_at) WHERE status = 'sent';

-- `POST /emails/capacity-boost`: one row per project while (or since) a boost was activated.
CREATE TABLE email_capacity_boosts (
  project_id text PRIMARY KEY,
  expires_at timestamptz NOT NULL
);
