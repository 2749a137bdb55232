-- TOTP secrets of users with multi-factor authentication. The secret is encrypted at rest (SecretBox envelope
-- encryption, bound to project and user); `last_used_step` is the 30-second step of the last accepted code, so a
-- code (or an older one) cannot be used twice.
CREATE TABLE totp_credentials (
  project_id text NOT NULL,
  user_id uuid NOT NULL,
  secret_ciphertext text NOT NULL,
  last_used_step bigint NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, user_id)
);
