-- Internal (project) API key sets. Keys are stored only as SHA-256 hashes (they carry 225 random bits, so a fast
-- hash is enough) plus their last four characters for display.
CREATE TABLE api_key_sets (
  id uuid PRIMARY KEY,
  project_id text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  description text NOT NULL,
  publishable_client_key_hash text UNIQUE,
  publishable_client_key_last_four text,
  secret_server_key_hash text UNIQUE,
  secret_server_key_last_four text,
  super_secret_admin_key_hash text UNIQUE,
  super_secret_admin_key_last_four text,
  expires_at timestamptz,
  manually_revoked_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX api_key_sets_project ON api_key_sets (project_id, created_at DESC);
