-- Config by level (defaults < project < branch < environment). The existing `config_override` column is the
-- environment level. Secret leaves of every level are SecretBox ciphertexts, as in `config_override`.
ALTER TABLE projects
  ADD COLUMN project_config_override jsonb NOT NULL DEFAULT '{}'::jsonb,
  ADD COLUMN branch_config_override jsonb NOT NULL DEFAULT '{}'::jsonb,
  -- Where the branch config was pushed from (`/internal/config/source`); NULL = unlinked.
  ADD COLUMN branch_config_source jsonb;
