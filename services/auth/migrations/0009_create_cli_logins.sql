-- Command-line logins in progress. Both codes are stored only as SHA-256. When a signed-in browser completes a login,
-- a session of its own is opened for the CLI and its refresh token is kept encrypted (SecretBox) until the CLI's
-- next poll takes it; it is erased then (`delivered_at` set, ciphertext NULL).
CREATE TABLE cli_logins (
  id uuid PRIMARY KEY,
  project_id text NOT NULL,
  polling_code_hash text NOT NULL UNIQUE,
  login_code_hash text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  completed_at timestamptz,
  user_id uuid,
  session_id uuid,
  refresh_token_ciphertext text,
  delivered_at timestamptz
);
CREATE INDEX cli_logins_expires_at ON cli_logins (expires_at);
