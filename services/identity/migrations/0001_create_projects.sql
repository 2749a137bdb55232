-- Projects (tenants). `internal` is the dashboard's own project; all others have UUID ids.
CREATE TABLE projects (
  id text PRIMARY KEY CHECK (id = 'internal' OR id ~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'),
  display_name text NOT NULL,
  description text NOT NULL DEFAULT '',
  logo_url text,
  full_logo_url text,
  is_production_mode boolean NOT NULL DEFAULT false,
  -- A team of the `internal` project (teams-permissions service); a plain id, no cross-schema foreign key.
  owner_team_id uuid,
  -- The project's configuration override document (rendered = defaults < this). Secret leaves are SecretBox
  -- ciphertexts (vsb1.…), never plaintext.
  config_override jsonb NOT NULL DEFAULT '{}'::jsonb,
  version bigint NOT NULL DEFAULT 1,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX projects_owner_team_id ON projects (owner_team_id) WHERE owner_team_id IS NOT NULL;
