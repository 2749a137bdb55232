-- The next signing key of each project and audience (issue 13: the JWKS serves two keys per audience, as the
-- published backend does). It is published before it signs anything, so caches that fetched the JWKS already hold it
-- when a rotation makes it current; the rotation then moves it into signing_keys (same kid, same sealed key) and makes
-- a new next key. Sealed like signing_keys.private_jwk_sealed.
CREATE TABLE next_signing_keys (
  project_id text NOT NULL,
  audience text NOT NULL,
  kid text NOT NULL UNIQUE CHECK (kid ~ '^[A-Za-z0-9_-]{12}$'),
  public_jwk jsonb NOT NULL,
  private_jwk_sealed text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, audience)
);
