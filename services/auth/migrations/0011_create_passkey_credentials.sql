-- WebAuthn credentials (passkeys) of users. `credential_id` is the base64url credential id (unique per project),
-- `public_key` the COSE public key (not secret), `counter` the authenticator's signature counter (a response whose
-- counter does not exceed it is refused), `rp_id` the relying-party id (host name) it was made for: a sign-in must
-- come from that host. `user_version` is identity's user version when the credential was enabled; a later user
-- update that turns passkey_auth_enabled off removes it.
CREATE TABLE passkey_credentials (
  id uuid PRIMARY KEY,
  project_id text NOT NULL,
  user_id uuid NOT NULL,
  credential_id text NOT NULL,
  public_key bytea NOT NULL,
  counter bigint NOT NULL DEFAULT 0,
  transports text[] NOT NULL DEFAULT '{}',
  name text NOT NULL,
  rp_id text NOT NULL,
  origin text NOT NULL,
  aaguid text NOT NULL DEFAULT '',
  device_type text NOT NULL DEFAULT '',
  backed_up boolean NOT NULL DEFAULT false,
  user_version bigint NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz,
  CONSTRAINT passkey_credentials_credential_unique UNIQUE (project_id, credential_id)
);
CREATE INDEX passkey_credentials_user ON passkey_credentials (project_id, user_id, created_at);
