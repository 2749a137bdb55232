-- Browser analytics events (page views, clicks, custom events), per project. `refresh_token_id` is the session the
-- events came from (null for server-sent events). Rows are deleted `VESTIBULE_ANALYTICS_RETENTION_DAYS` after
-- `received_at` (the server's clock: a client cannot make its rows live longer by sending future timestamps).
CREATE TABLE events (
  id bigserial PRIMARY KEY,
  project_id text NOT NULL,
  branch_id text NOT NULL,
  event_type text NOT NULL,
  event_at timestamptz NOT NULL,
  received_at timestamptz NOT NULL DEFAULT now(),
  user_id uuid,
  team_id uuid,
  refresh_token_id uuid,
  session_replay_segment_id uuid,
  -- The session's replay when one was recording (or the one the batch named), for "replay of this page view".
  session_replay_id uuid,
  batch_id uuid NOT NULL,
  from_server boolean NOT NULL DEFAULT false,
  data jsonb NOT NULL
);
CREATE INDEX events_project_time ON events (project_id, event_at);
CREATE INDEX events_project_type_time ON events (project_id, event_type, event_at);
CREATE INDEX events_received ON events (received_at);

-- Batches already stored, per session (or per project for server batches: session key 'server'), so a batch the
-- SDK sends twice (interval flush and pagehide) is stored once.
CREATE TABLE event_batches (
  project_id text NOT NULL,
  session_key text NOT NULL,
  batch_id uuid NOT NULL,
  event_count integer NOT NULL,
  received_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, session_key, batch_id)
);
CREATE INDEX event_batches_received ON event_batches (received_at);

-- Session replays: one per session and stretch of activity (a new one after 3 minutes idle or 12 hours).
CREATE TABLE session_replays (
  id uuid PRIMARY KEY,
  project_id text NOT NULL,
  branch_id text NOT NULL,
  user_id uuid NOT NULL,
  refresh_token_id uuid NOT NULL,
  started_at timestamptz NOT NULL,
  last_event_at timestamptz NOT NULL,
  chunk_count integer NOT NULL DEFAULT 0,
  event_count integer NOT NULL DEFAULT 0,
  byte_length bigint NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX session_replays_session ON session_replays (project_id, refresh_token_id, updated_at DESC);
CREATE INDEX session_replays_list ON session_replays (project_id, last_event_at DESC, id DESC);
CREATE INDEX session_replays_updated ON session_replays (updated_at);

-- The stored batches of a replay: the rrweb events as gzip-compressed JSON.
CREATE TABLE replay_chunks (
  id uuid PRIMARY KEY,
  project_id text NOT NULL,
  session_replay_id uuid NOT NULL REFERENCES session_replays (id) ON DELETE CASCADE,
  batch_id uuid NOT NULL,
  browser_session_id uuid NOT NULL,
  session_replay_segment_id uuid NOT NULL,
  event_count integer NOT NULL,
  byte_length integer NOT NULL,
  first_event_at timestamptz NOT NULL,
  last_event_at timestamptz NOT NULL,
  payload bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (session_replay_id, batch_id)
);
CREATE INDEX replay_chunks_order ON replay_chunks (session_replay_id, first_event_at, id);

-- Ingestion quotas: what a key (a session, or a whole project) sent in one window. Only accepted batches count.
CREATE TABLE quota_windows (
  key text NOT NULL,
  window_start timestamptz NOT NULL,
  events integer NOT NULL DEFAULT 0,
  bytes bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (key, window_start)
);
CREATE INDEX quota_windows_start ON quota_windows (window_start);
