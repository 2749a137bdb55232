-- Brute-force protection of invitation codes, shared by every replica (@vestibule/shared/rate-limit): failed
-- attempts per key (a SHA-256 of method + project + account, or of the client IP: no IP is stored here) and, after
-- too many, a short growing block.
CREATE TABLE attempt_counters (
  key text PRIMARY KEY,
  failures integer NOT NULL,
  last_failure_at timestamptz NOT NULL,
  blocked_until timestamptz
);
CREATE INDEX attempt_counters_last_failure_at ON attempt_counters (last_failure_at);
