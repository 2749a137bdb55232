-- A snapshot of what access tokens say about each user (name, e-mail, verified, team, anonymous, MFA, sign-up time),
-- kept current from identity.user.created/updated/deleted.v1 and from the users identity returns at sign-in, so a
-- refresh needs no identity RPC. `version` is identity's user version (older data never overwrites newer);
-- `deleted` is a tombstone, so an event that arrives late cannot bring a deleted user back. `checked_at`: when
-- identity last confirmed the row (a refresh re-checks with identity when it is old, in case events are held up).
CREATE TABLE user_claims (
  project_id text NOT NULL,
  user_id uuid NOT NULL,
  version bigint NOT NULL,
  deleted boolean NOT NULL DEFAULT false,
  display_name text,
  primary_email text,
  primary_email_verified boolean NOT NULL DEFAULT false,
  selected_team_id text,
  is_anonymous boolean NOT NULL DEFAULT false,
  requires_totp_mfa boolean NOT NULL DEFAULT false,
  signed_up_at_millis bigint NOT NULL DEFAULT 0,
  checked_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, user_id)
);
CREATE INDEX user_claims_tombstones ON user_claims (checked_at) WHERE deleted;
