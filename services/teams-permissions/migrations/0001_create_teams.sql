-- Teams of a project. Metadata columns hold JSON texts (NULL = null), kept as written.
CREATE TABLE teams (
  id uuid PRIMARY KEY,
  project_id text NOT NULL,
  display_name text NOT NULL,
  profile_image_url text,
  client_metadata text,
  client_read_only_metadata text,
  server_metadata text,
  version bigint NOT NULL DEFAULT 1,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX teams_project_created ON teams (project_id, created_at, id);

-- Memberships, with the member profile (the name and image a user shows in this team; NULL = the user's own).
-- `user_id` is identity's user id: a plain uuid, no cross-schema foreign key.
CREATE TABLE team_members (
  team_id uuid NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
  user_id uuid NOT NULL,
  project_id text NOT NULL,
  display_name text,
  profile_image_url text,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (team_id, user_id)
);
CREATE INDEX team_members_user ON team_members (project_id, user_id);
CREATE INDEX team_members_team_created ON team_members (team_id, created_at, user_id);

-- Team permissions held directly by a member (the contained ones follow from the definitions). A membership's
-- grants go with it.
CREATE TABLE team_permission_grants (
  team_id uuid NOT NULL,
  user_id uuid NOT NULL,
  permission_id text NOT NULL,
  project_id text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (team_id, user_id, permission_id),
  FOREIGN KEY (team_id, user_id) REFERENCES team_members (team_id, user_id) ON DELETE CASCADE
);
CREATE INDEX team_permission_grants_permission ON team_permission_grants (project_id, permission_id);

-- Project permissions held directly by a user.
CREATE TABLE project_permission_grants (
  project_id text NOT NULL,
  user_id uuid NOT NULL,
  permission_id text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (project_id, user_id, permission_id)
);
CREATE INDEX project_permission_grants_permission ON project_permission_grants (project_id, permission_id);

-- Users identity deleted (identity.user.deleted.v1): a membership or grant must not be created for them afterwards,
-- whatever order events and requests arrive in.
CREATE TABLE deleted_users (
  project_id text NOT NULL,
  user_id uuid NOT NULL,
  deleted_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, user_id)
);
