-- Encryption keys of each project's vault values. A key is 32 random bytes stored only encrypted by the service's
-- SecretBox (whose data keys the master keys wrap), so rotating a master key re-wraps the data_keys rows alone.
-- One key per project is active (new writes); older ones stay to decrypt values written under them.
CREATE TABLE project_keys (
  id uuid PRIMARY KEY,
  project_id text NOT NULL,
  wrapped_key text NOT NULL,
  active boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX project_keys_active ON project_keys (project_id) WHERE active;

-- Values of data-vault stores. `key_hash` is the SHA-256 of the client's hashed key; `ciphertext` is the client's
-- encrypted value encrypted once more (AES-256-GCM) under the project key `project_key_id`, bound to project, store
-- and key.
CREATE TABLE entries (
  project_id text NOT NULL,
  store_id text NOT NULL,
  key_hash text NOT NULL,
  ciphertext text NOT NULL,
  project_key_id uuid NOT NULL REFERENCES project_keys (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, store_id, key_hash)
);
CREATE INDEX entries_project_key ON entries (project_key_id);
