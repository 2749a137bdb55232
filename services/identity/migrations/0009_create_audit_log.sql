-- Issue 17: the audit log of admin and server-key writes, a capability of identity (src/audit/). One hash chain per
-- project: each row's hash is SHA-256 over the canonical JSON of its content and the previous row's hash
-- (domain/chain.ts); `npm run audit:verify` recomputes every chain. Appends are serialised per project by locking
-- the project's head row, which also records the last seq and hash (so deleting the newest rows is detectable).
CREATE TABLE audit_entries (
  project_id text NOT NULL,
  seq bigint NOT NULL,
  id uuid NOT NULL UNIQUE,
  occurred_at timestamptz NOT NULL,
  actor_type text NOT NULL,
  actor_id text NOT NULL,
  actor_project_id text NOT NULL,
  ip text NOT NULL,
  user_agent text NOT NULL,
  action text NOT NULL,
  resource_type text NOT NULL,
  resource_id text NOT NULL,
  before jsonb,
  after jsonb,
  request_id text NOT NULL,
  request_line text NOT NULL,
  prev_hash text NOT NULL,
  hash text NOT NULL,
  PRIMARY KEY (project_id, seq)
);
CREATE INDEX audit_entries_resource ON audit_entries (project_id, resource_type, resource_id, seq);
CREATE INDEX audit_entries_actor ON audit_entries (project_id, actor_type, actor_id, seq);
CREATE INDEX audit_entries_time ON audit_entries (project_id, occurred_at);

CREATE TABLE audit_heads (
  project_id text PRIMARY KEY,
  seq bigint NOT NULL,
  hash text NOT NULL
);
