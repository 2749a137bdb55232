-- Issue 13 (the current published SDK): users restricted by an administrator, with a public reason and private
-- details; projects' dark-mode logos, dashboard onboarding status and development flag; the dashboard's AI-chat
-- threads (storage only).

ALTER TABLE users
  ADD COLUMN restricted_by_admin boolean NOT NULL DEFAULT false,
  ADD COLUMN restricted_by_admin_reason text,
  ADD COLUMN restricted_by_admin_private_details text;

ALTER TABLE projects
  ADD COLUMN logo_dark_mode_url text,
  ADD COLUMN logo_full_dark_mode_url text,
  ADD COLUMN onboarding_status text NOT NULL DEFAULT '',
  ADD COLUMN is_development_environment boolean NOT NULL DEFAULT false;

CREATE TABLE ai_chat_messages (
  project_id text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  thread_id text NOT NULL,
  seq integer NOT NULL,
  message jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, thread_id, seq)
);
