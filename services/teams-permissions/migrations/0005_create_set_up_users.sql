-- Users this service has set up after their creation (default permissions, personal team): written by the
-- SetUpNewUser RPC that identity calls while a sign-up is answered, and by the identity.user.created.v1 consumer,
-- whichever comes first; the other then changes nothing (issue 13: the personal team exists when sign-up answers).
CREATE TABLE set_up_users (
  project_id text NOT NULL,
  user_id uuid NOT NULL,
  set_up_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, user_id)
);
