-- Issue 13: access tokens carry is_restricted / restricted_reason (restrictionOf in @vestibule/shared/restriction),
-- which also depend on whether an administrator restricted the user.
ALTER TABLE user_claims ADD COLUMN restricted_by_admin boolean NOT NULL DEFAULT false;
