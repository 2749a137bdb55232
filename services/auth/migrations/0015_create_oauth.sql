-- OAuth sign-in (contract endpoints.md §1 OAuth and §9): the links between users and third-party accounts, the
-- flows in progress and the authorization codes Vestibule issues to the SDK.
--
-- `oauth_accounts`: one row per (user, provider config, provider account). The provider's access and refresh tokens
-- are encrypted at rest (SecretBox, bound to the row id); `scopes` are the scopes the access token was granted.
CREATE TABLE oauth_accounts (
  id uuid PRIMARY KEY,
  project_id text NOT NULL,
  user_id uuid NOT NULL,
  provider_config_id text NOT NULL,
  provider_type text NOT NULL,
  provider_account_id text NOT NULL,
  email text,
  allow_sign_in boolean NOT NULL DEFAULT true,
  allow_connected_accounts boolean NOT NULL DEFAULT true,
  -- Whether the tokens came from the platform's shared keys (connected-account tokens are not handed out then).
  shared_keys boolean NOT NULL DEFAULT false,
  access_token_ciphertext text,
  access_token_expires_at timestamptz,
  refresh_token_ciphertext text,
  scopes text[] NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (project_id, user_id, provider_config_id, provider_account_id)
);
-- A provider account signs in to at most one user; one sign-in link per provider and user.
CREATE UNIQUE INDEX oauth_accounts_sign_in ON oauth_accounts (project_id, provider_config_id, provider_account_id) WHERE allow_sign_in;
CREATE UNIQUE INDEX oauth_accounts_user_sign_in ON oauth_accounts (project_id, user_id, provider_config_id) WHERE allow_sign_in;
CREATE INDEX oauth_accounts_user ON oauth_accounts (project_id, user_id);
CREATE INDEX oauth_accounts_account ON oauth_accounts (project_id, provider_config_id, provider_account_id);

-- A flow between the authorize redirect and the provider's callback. Keyed by the SHA-256 of the inner state (the
-- `state` sent to the provider); `data` holds the outer request (redirect URI, PKCE challenge, state, ...) and, sealed,
-- the inner PKCE verifier and nonce. Deleted when the callback uses it (single use).
CREATE TABLE oauth_flows (
  state_hash text PRIMARY KEY,
  project_id text NOT NULL,
  provider_config_id text NOT NULL,
  data jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL
);
CREATE INDEX oauth_flows_expires_at ON oauth_flows (expires_at);

-- Authorization codes of the outer flow (the SDK exchanges them at POST /auth/oauth/token), stored as SHA-256,
-- single use (deleted when exchanged).
CREATE TABLE oauth_authorization_codes (
  code_hash text PRIMARY KEY,
  project_id text NOT NULL,
  user_id uuid NOT NULL,
  data jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL
);
CREATE INDEX oauth_authorization_codes_expires_at ON oauth_authorization_codes (expires_at);
