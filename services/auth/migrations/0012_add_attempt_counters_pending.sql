-- Brute-force reservations (@vestibule/shared/rate-limit): attempts being checked right now count before they are
-- checked, so that guesses sent in parallel cannot all be checked; a reservation nobody settles (its replica died
-- mid-check) counts as a failure once `pending_until` has passed.
ALTER TABLE attempt_counters
  ADD COLUMN pending integer NOT NULL DEFAULT 0,
  ADD COLUMN pending_until timestamptz;
