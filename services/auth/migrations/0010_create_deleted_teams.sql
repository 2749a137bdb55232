-- Teams deleted in the teams-permissions service (from teams_permissions.team.deleted.v1): their API keys were
-- deleted, and no new key may be created for them. Kept 30 days (the janitor), far past any request in flight.
CREATE TABLE deleted_teams (
  project_id text NOT NULL,
  team_id uuid NOT NULL,
  deleted_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, team_id)
);
CREATE INDEX deleted_teams_deleted_at ON deleted_teams (deleted_at);
