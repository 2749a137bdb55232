/**
 * Whether an error means the database cannot be reached right now (refused or lost connection, a server shutting down
 * or starting up, a connection that could not be made in time), rather than a fault of the request or of our code.
 * Such errors answer Code.Unavailable (the gateway's 503), like a service that is down, not Internal (500).
 *
 * A socket error (ECONNRESET, ECONNREFUSED, ...) says nothing of which connection failed: it counts only when a
 * database connection handed it out (marked by the pools' client, db/index.ts). The same code from an HTTP call to a
 * third party or an SMTP server is not the database being down.
 */
// admin_shutdown, crash_shutdown, cannot_connect_now, too_many_connections (class 08, connection exceptions, below)
const PG_UNAVAILABLE_CODES = new Set(["57P01", "57P02", "57P03", "53300"]);
const NET_UNAVAILABLE_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "EHOSTUNREACH", "ENOTFOUND", "EAI_AGAIN"]);
const PG_CLIENT_MESSAGES = [/^Connection terminated/, /^timeout exceeded when trying to connect/, /^Client has encountered a connection error/];

const fromDatabase = new WeakSet<object>();

/** Marks an error that a database connection handed out (its socket's or its connect attempt's). */
export function markDatabaseError(err: unknown): void {
  if (typeof err === "object" && err !== null) fromDatabase.add(err);
}

export function isDatabaseUnavailable(err: unknown, fromDatabaseConnection = false): boolean {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const database = fromDatabaseConnection || fromDatabase.has(e);
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && (PG_UNAVAILABLE_CODES.has(code) || code.startsWith("08") || (database && NET_UNAVAILABLE_CODES.has(code)))) return true;
    if (PG_CLIENT_MESSAGES.some((m) => m.test(e instanceof Error ? e.message : ""))) return true;
    // AggregateError (a connect attempt over IPv4 and IPv6 that failed on both).
    if (e instanceof AggregateError && e.errors.some((x) => isDatabaseUnavailable(x, database))) return true;
  }
  return false;
}
