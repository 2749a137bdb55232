-- Users by selected team: a deleted team is unselected for all its users at once (teams_permissions.team.deleted.v1).
CREATE INDEX users_selected_team ON users (project_id, selected_team_id) WHERE selected_team_id IS NOT NULL;
