-- Issue 21: the overview's active users per week or month and its weekly retention need to know on which days each
-- user was active, not only their last activity (user_activity) or the daily count (user_daily_stats). One row per
-- user and UTC day with activity, written with the daily count (once per user and day).
CREATE TABLE user_active_days (
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  project_id text NOT NULL,
  day date NOT NULL,
  PRIMARY KEY (user_id, day)
);
CREATE INDEX user_active_days_project ON user_active_days (project_id, day);

-- What is known of the past: every user was active on their sign-up day and on their last active day.
INSERT INTO user_active_days (user_id, project_id, day)
SELECT id, project_id, (signed_up_at AT TIME ZONE 'UTC')::date FROM users
UNION
SELECT user_id, project_id, (last_active_at AT TIME ZONE 'UTC')::date FROM user_activity
ON CONFLICT DO NOTHING;
