-- One-time codes (password reset, e-mail verification, and later magic links, invitations, MFA attempts).
-- Codes are 45 lower-case characters stored only as SHA-256; `tail_hash` is the SHA-256 of the last 39 characters,
-- so an attempt can count against every code sharing them (an OTP's nonce).
CREATE TABLE verification_codes (
  id uuid PRIMARY KEY,
  project_id text NOT NULL,
  purpose text NOT NULL,
  code_hash text NOT NULL UNIQUE,
  tail_hash text NOT NULL,
  user_id uuid,
  data jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  attempts integer NOT NULL DEFAULT 0
);
CREATE INDEX verification_codes_tail ON verification_codes (project_id, tail_hash);
CREATE INDEX verification_codes_user ON verification_codes (project_id, user_id) WHERE user_id IS NOT NULL;
CREATE INDEX verification_codes_expires_at ON verification_codes (expires_at);
