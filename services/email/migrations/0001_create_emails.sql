-- Every e-mail the platform asked for, one row per message, whatever its source (today the auth service's
-- auth.email.requested.v1 events; later custom e-mails sent through the API). The row is the record of the message
-- and, while `queued`, the work item of the sender:
--   development: the dev mailbox is the delivery, so a message is `sent` as soon as it is recorded;
--   production:  it stays `queued` until the SMTP sender (a later issue) delivers it (`sent`) or gives up (`failed`),
--                counting its tries in `attempts` and keeping the last problem in `error`.
-- Themes and templates (a later issue) render into `subject`/`html`/`text` before the row is written; `template`
-- names the system template a message came from, NULL for custom mail.
CREATE TABLE emails (
  id uuid PRIMARY KEY,
  -- The event this message was recorded from. Consumers are idempotent through processed_events already; this also
  -- holds if a consumer is ever renamed (a new durable consumer starts at the beginning of the retained stream).
  event_id uuid UNIQUE,
  -- `internal` or a project UUID (identity service); a plain id, no cross-schema foreign key.
  project_id text NOT NULL,
  -- Addresses, trimmed and lower-cased. Empty only for a request that was refused (status `failed`).
  recipients text[] NOT NULL,
  subject text NOT NULL,
  html text,
  text text,
  template text,
  -- "Transactional" or "Marketing" (checked when the message is recorded; a bad value makes the message `failed`).
  notification_category text NOT NULL,
  user_id text,
  status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'sent', 'failed')),
  error text,
  attempts integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  created_at timestamptz NOT NULL DEFAULT now(),
  sent_at timestamptz,
  CHECK ((status = 'sent') = (sent_at IS NOT NULL)),
  CHECK (status <> 'failed' OR error IS NOT NULL)
);

-- The mailbox listing: newest first, optionally by project and by recipient.
CREATE INDEX emails_created ON emails (created_at DESC, id DESC);
CREATE INDEX emails_project_created ON emails (project_id, created_at DESC, id DESC);
CREATE INDEX emails_recipients ON emails USING gin (recipients);
-- The sender's queue.
CREATE INDEX emails_queued ON emails (created_at) WHERE status = 'queued';
