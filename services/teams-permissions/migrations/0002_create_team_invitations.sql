-- Team invitations, each with a one-time code (contract endpoints.md §1.9). Codes are 45 lower-case characters stored
-- only as SHA-256; `tail_hash` is the SHA-256 of the last 39 characters, so every attempt counts against all codes
-- sharing them. A used or expired invitation stays until the janitor removes it a day after expiry.
CREATE TABLE team_invitations (
  id uuid PRIMARY KEY,
  project_id text NOT NULL,
  team_id uuid NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
  recipient_email text NOT NULL,
  code_hash text NOT NULL UNIQUE,
  tail_hash text NOT NULL,
  invited_by_user_id uuid,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  used_by_user_id uuid,
  attempts integer NOT NULL DEFAULT 0
);
CREATE INDEX team_invitations_tail ON team_invitations (project_id, tail_hash);
CREATE INDEX team_invitations_team ON team_invitations (team_id, created_at);
CREATE INDEX team_invitations_expires_at ON team_invitations (expires_at);
