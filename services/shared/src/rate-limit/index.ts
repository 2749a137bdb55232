/**
 * Brute-force protection for any service that checks guessable secrets (passwords, one-time codes, TOTP): failure
 * counters per account (strict, growing back-off) and per client IP and project (a daily bucket, see backoff.ts), shared by every replica through the service's own PostgreSQL schema, and
 * a 429 "Too many attempts. Please wait N seconds and try again." with `retryAfterSeconds` (Retry-After) once a
 * key is blocked. Every attempt is reserved before it is checked (`RateLimiter.guard` / `guardMany`), so parallel
 * guesses are checked no more often than sequential ones. No domain knowledge: the caller names the method, the
 * project and the account.
 *
 * A service using it creates this table in migrations of its own schema (the store reads the pool's schema):
 *
 *   CREATE TABLE attempt_counters (
 *     key text PRIMARY KEY, failures integer NOT NULL, last_failure_at timestamptz NOT NULL, blocked_until timestamptz,
 *     pending integer NOT NULL DEFAULT 0, pending_until timestamptz
 *   );
 *   CREATE INDEX attempt_counters_last_failure_at ON attempt_counters (last_failure_at);
 *
 * and removes idle counters now and then (`attemptStore.deleteStale`).
 */
export { RateLimiter, IP_WINDOW_SECONDS, isLoopbackIp, type Attempt, type AttemptSubject, type RateLimiterOptions } from "./rate-limiter.ts";
export { ipFailuresPerDayFromRendered, rateLimitConfigSpec, type RateLimitSettings } from "./config.ts";
export { blockFor, blockSeconds, rememberedFailures, tooManyAttemptsMessage, type BackoffPolicy, type BucketPolicy, type CounterPolicy } from "./backoff.ts";
export { attemptStore } from "./attempt-store.ts";
export type { AttemptOutcome } from "./grants.ts";
