-- Outgoing webhooks (src/webhooks/): endpoints with their sealed signing secrets, one message per event per matching
-- endpoint (its id is the webhook-id header, derived from the event id and the endpoint id), every delivery attempt,
-- and the short-lived tokens of the dashboard's webhook pages (POST /webhooks/svix-token).

CREATE TABLE webhook_endpoints (
  id uuid PRIMARY KEY,
  project_id text NOT NULL,
  url text NOT NULL,
  description text NOT NULL DEFAULT '',
  -- Event types delivered; empty = every type.
  event_types text[] NOT NULL DEFAULT '{}',
  enabled boolean NOT NULL DEFAULT true,
  disabled_reason text NOT NULL DEFAULT '',
  -- SecretBox ciphertexts (context: "webhook-secret:<endpoint id>").
  secret_sealed text NOT NULL,
  previous_secret_sealed text,
  previous_secret_expires_at timestamptz,
  -- First failure since the last success; the endpoint is disabled when this is older than the disable window.
  failing_since timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_endpoints_project ON webhook_endpoints (project_id, created_at);

CREATE TABLE webhook_messages (
  -- The webhook-id header: "msg_" + base64url(SHA-256(event id, endpoint id)) truncated; stable across retries,
  -- re-sends, replays and consumer redeliveries.
  id text PRIMARY KEY,
  endpoint_id uuid NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  project_id text NOT NULL,
  event_id text NOT NULL,
  event_type text NOT NULL,
  payload jsonb NOT NULL,
  -- pending → delivered | failed (retries exhausted or endpoint disabled).
  status text NOT NULL DEFAULT 'pending',
  attempts integer NOT NULL DEFAULT 0,
  -- When it is due; while an attempt is in flight this is the lease's end (a crashed deliverer's claim runs out).
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  -- What queued the next attempt: scheduled, resend or replay.
  trigger text NOT NULL DEFAULT 'scheduled',
  created_at timestamptz NOT NULL DEFAULT now(),
  delivered_at timestamptz
);
CREATE INDEX webhook_messages_due ON webhook_messages (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_messages_endpoint ON webhook_messages (endpoint_id, created_at);
CREATE INDEX webhook_messages_project ON webhook_messages (project_id, created_at DESC);

CREATE TABLE webhook_attempts (
  id uuid PRIMARY KEY,
  message_id text NOT NULL REFERENCES webhook_messages (id) ON DELETE CASCADE,
  endpoint_id uuid NOT NULL,
  project_id text NOT NULL,
  event_type text NOT NULL,
  attempted_at timestamptz NOT NULL DEFAULT now(),
  response_status integer NOT NULL DEFAULT 0,
  succeeded boolean NOT NULL,
  latency_ms integer NOT NULL,
  -- At most 1 KB of the answer's body.
  response_excerpt text NOT NULL DEFAULT '',
  error text NOT NULL DEFAULT '',
  trigger text NOT NULL DEFAULT 'scheduled'
);
CREATE INDEX webhook_attempts_project ON webhook_attempts (project_id, attempted_at DESC, id);
CREATE INDEX webhook_attempts_time ON webhook_attempts (attempted_at);

CREATE TABLE webhook_portal_tokens (
  token_hash text PRIMARY KEY,
  project_id text NOT NULL,
  expires_at timestamptz NOT NULL
);

-- Team memberships as the membership events told them, so that a user.deleted webhook can list the teams the user
-- was in (teams-permissions removes them when it sees the deletion). A removal keeps its row with the time it
-- happened: memberships removed at or after the deletion were removed by it. Removed rows are pruned after a day.
CREATE TABLE webhook_team_members (
  project_id text NOT NULL,
  team_id text NOT NULL,
  user_id text NOT NULL,
  removed_at timestamptz,
  PRIMARY KEY (project_id, user_id, team_id)
);
CREATE INDEX webhook_team_members_team ON webhook_team_members (project_id, team_id);
