-- Sessions: one row per refresh token (`id` = the access token's refresh_token_id). The refresh token itself is
-- stored only as its SHA-256 (it carries 225 random bits, so a fast hash is enough).
CREATE TABLE sessions (
  id uuid PRIMARY KEY,
  project_id text NOT NULL,
  user_id uuid NOT NULL,
  refresh_token_hash text NOT NULL UNIQUE,
  is_impersonation boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  -- Written at most once a minute per session (refreshes and batched gateway touches).
  last_used_at timestamptz,
  last_used_ip text,
  -- Geo-IP of last_used_ip ({ip, countryCode, regionCode, cityName, latitude, longitude, tzIdentifier}) when known.
  last_used_ip_info jsonb
);
CREATE INDEX sessions_user ON sessions (project_id, user_id, created_at DESC);
CREATE INDEX sessions_expires_at ON sessions (expires_at);

-- Refresh tokens replaced by rotation (projects with auth.refreshTokenRotation). Presenting one of these again means
-- the token was copied: the whole session (the family of tokens it belongs to) is revoked.
CREATE TABLE rotated_refresh_tokens (
  token_hash text PRIMARY KEY,
  session_id uuid NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  rotated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX rotated_refresh_tokens_session ON rotated_refresh_tokens (session_id);
