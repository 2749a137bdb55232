-- Data seeds applied to a deployment after its first start (e.g. definitions the `internal` project gained in a later
-- release), each recorded once: a seed runs at most once per deployment, in the transaction that applies it, and
-- never again (forward only; an operator may change what it wrote afterwards).
CREATE TABLE applied_seeds (
  id text PRIMARY KEY,
  applied_at timestamptz NOT NULL DEFAULT now()
);
