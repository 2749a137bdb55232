-- E-mail delivery over SMTP, themes, templates, drafts, notification preferences and the dev mailbox.

-- The delivery queue is the `emails` table itself: a `queued` row is due at `next_attempt_at`. A replica claims due
-- rows (FOR UPDATE SKIP LOCKED, a few per project at a time) by writing a lease (`lease_id`, `lease_until`) and counting
-- the attempt, sends outside any transaction, then records the outcome only if it still holds the lease. A replica
-- that dies mid-send leaves a lease that runs out, and another replica retries the row.
-- Bodies carry one-time codes: from now on `html`/`text` of a queued row are SecretBox ciphertexts (bound to the
-- row's id), and both are cleared once the e-mail is sent or has failed for good.
ALTER TABLE emails
  ADD COLUMN next_attempt_at timestamptz NOT NULL DEFAULT now(),
  ADD COLUMN lease_id uuid,
  ADD COLUMN lease_until timestamptz,
  ADD COLUMN last_attempt_at timestamptz,
  -- How the last attempt was sent: {type: "shared"} or {type: "standard", host, port, username, sender_name,
  -- sender_email}. Never the password.
  ADD COLUMN sender_config jsonb;
UPDATE emails SET next_attempt_at = created_at WHERE status = 'queued';
CREATE INDEX emails_due ON emails (next_attempt_at) WHERE status = 'queued';
CREATE INDEX emails_project_due ON emails (project_id, next_attempt_at) WHERE status = 'queued';

-- Projects whose default theme and system templates were written (once; admins may then edit them).
CREATE TABLE email_projects (
  project_id text PRIMARY KEY,
  seeded_at timestamptz NOT NULL DEFAULT now()
);

-- TSX sources written by the project's admins (untrusted code: rendered only in the sandbox).
CREATE TABLE email_themes (
  project_id text NOT NULL,
  id uuid NOT NULL,
  display_name text NOT NULL,
  tsx_source text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, id)
);

-- theme_mode: `project` = the project's selected theme, `none` = no theme, `theme` = theme_id.
CREATE TABLE email_templates (
  project_id text NOT NULL,
  id uuid NOT NULL,
  display_name text NOT NULL,
  tsx_source text NOT NULL,
  theme_mode text NOT NULL DEFAULT 'project' CHECK (theme_mode IN ('project', 'none', 'theme')),
  theme_id uuid,
  -- The system e-mail it renders (email_verification, password_reset, magic_link, team_invitation,
  -- sign_in_invitation); NULL for the admins' own templates.
  type text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, id),
  CHECK ((theme_mode = 'theme') = (theme_id IS NOT NULL))
);
CREATE UNIQUE INDEX email_templates_type ON email_templates (project_id, type) WHERE type IS NOT NULL;

CREATE TABLE email_drafts (
  project_id text NOT NULL,
  id uuid NOT NULL,
  display_name text NOT NULL,
  tsx_source text NOT NULL,
  theme_mode text NOT NULL DEFAULT 'project' CHECK (theme_mode IN ('project', 'none', 'theme')),
  theme_id uuid,
  sent_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, id),
  CHECK ((theme_mode = 'theme') = (theme_id IS NOT NULL))
);

-- Only choices differing from the default (enabled) need a row; a row is kept either way once written.
CREATE TABLE notification_preferences (
  project_id text NOT NULL,
  user_id uuid NOT NULL,
  category_id uuid NOT NULL,
  enabled boolean NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, user_id, category_id)
);

-- Unsubscribe links of category e-mails: the SHA-256 of the link's random token.
CREATE TABLE unsubscribe_tokens (
  token_hash text PRIMARY KEY,
  project_id text NOT NULL,
  user_id uuid NOT NULL,
  category_id uuid NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX unsubscribe_tokens_user ON unsubscribe_tokens (project_id, user_id);

-- Development only: what the dev mailbox's SMTP server received (decoded), newest first.
CREATE TABLE dev_mailbox_messages (
  id uuid PRIMARY KEY,
  -- X-Vestibule-Email-Id of the message: the `emails` row it was sent for (no foreign key: any mail is accepted).
  email_id uuid,
  received_at timestamptz NOT NULL DEFAULT now(),
  envelope_from text NOT NULL,
  -- Envelope recipients, trimmed and lower-cased.
  recipients text[] NOT NULL,
  from_header text NOT NULL,
  subject text NOT NULL,
  html text,
  text text,
  size integer NOT NULL
);
CREATE INDEX dev_mailbox_messages_received ON dev_mailbox_messages (received_at DESC, id DESC);
CREATE INDEX dev_mailbox_messages_recipients ON dev_mailbox_messages USING gin (recipients);
