-- User and team API keys. The key string itself is never stored: only its SHA-256 (`key_hash`, the one index a check
-- uses) and its last four characters for listings. `owner_id` is the user (type 'user') or team (type 'team').
CREATE TABLE api_keys (
  id uuid PRIMARY KEY,
  project_id text NOT NULL,
  type text NOT NULL CHECK (type IN ('user', 'team')),
  owner_id uuid NOT NULL,
  description text NOT NULL,
  is_public boolean NOT NULL DEFAULT false,
  key_hash text NOT NULL UNIQUE,
  last_four text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz,
  manually_revoked_at timestamptz
);
CREATE INDEX api_keys_owner ON api_keys (project_id, type, owner_id, created_at DESC);
