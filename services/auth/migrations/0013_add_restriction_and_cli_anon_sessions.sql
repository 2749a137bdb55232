-- Issue 13: access tokens carry is_restricted / restricted_reason (restrictionOf in @vestibule/shared/restriction),
-- which also depend on whether an administrator restricted the user.
ALTER TABLE user_claims ADD COLUMN restricted_by_admin boolean NOT NULL DEFAULT false;

-- The anonymous user whose refresh token the CLI sent when it started a login (the browser may claim that session:
-- POST /auth/cli/complete mode "claim-anon-session"). Only the user id is kept, never the token.
ALTER TABLE cli_logins ADD COLUMN anon_user_id uuid;
