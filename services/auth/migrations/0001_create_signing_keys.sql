-- Access-token signing keys (ES256), one current key per project and audience (`<projectId>` and `<projectId>:anon`).
-- The private key is a JWK sealed with the service's SecretBox (never stored in clear). A rotated key keeps being
-- published in the JWKS until `publish_until` (its last tokens have expired), then it is only history.
CREATE TABLE signing_keys (
  kid text PRIMARY KEY CHECK (kid ~ '^[A-Za-z0-9_-]{12}$'),
  project_id text NOT NULL,
  audience text NOT NULL,
  public_jwk jsonb NOT NULL,
  private_jwk_sealed text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  retired_at timestamptz,
  publish_until timestamptz,
  CHECK ((retired_at IS NULL) = (publish_until IS NULL))
);
-- At most one current key per audience: N replicas creating the first key at once agree on one (ON CONFLICT).
CREATE UNIQUE INDEX signing_keys_current ON signing_keys (project_id, audience) WHERE retired_at IS NULL;
CREATE INDEX signing_keys_published ON signing_keys (project_id, audience, created_at DESC);
