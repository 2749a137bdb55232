import { Code } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { toConnectError } from "./connect.ts";
import { isDatabaseUnavailable, markDatabaseError } from "./unavailable.ts";

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });
/** An error as a database connection hands it out (db/index.ts DatabaseClient marks them). */
const fromDatabase = <E extends Error>(err: E): E => {
  markDatabaseError(err);
  return err;
};

describe("database unavailable", () => {
  it("recognises refused and lost connections and a server shutting down or starting, also as a cause", () => {
    expect(isDatabaseUnavailable(fromDatabase(withCode("connect ECONNREFUSED 127.0.0.1:5432", "ECONNREFUSED")))).toBe(true);
    expect(isDatabaseUnavailable(fromDatabase(withCode("read ECONNRESET", "ECONNRESET")))).toBe(true);
    expect(isDatabaseUnavailable(withCode("terminating connection due to administrator command", "57P01"))).toBe(true);
    expect(isDatabaseUnavailable(withCode("the database system is starting up", "57P03"))).toBe(true);
    expect(isDatabaseUnavailable(withCode("connection failure", "08006"))).toBe(true);
    expect(isDatabaseUnavailable(new Error("Connection terminated unexpectedly"))).toBe(true);
    expect(isDatabaseUnavailable(fromDatabase(new AggregateError([withCode("refused", "ECONNREFUSED")], "connect failed")))).toBe(true);
    expect(isDatabaseUnavailable(new Error("query failed", { cause: fromDatabase(withCode("refused", "ECONNREFUSED")) }))).toBe(true);
  });

  it("does not take a connection error of anything else (an HTTP call, an SMTP server) for the database being down", () => {
    expect(isDatabaseUnavailable(withCode("read ECONNRESET", "ECONNRESET"))).toBe(false);
    // fetch() wraps the socket's error.
    expect(isDatabaseUnavailable(new TypeError("fetch failed", { cause: withCode("read ECONNRESET", "ECONNRESET") }))).toBe(false);
    expect(isDatabaseUnavailable(withCode("getaddrinfo ENOTFOUND api.stripe.com", "ENOTFOUND"))).toBe(false);
    expect(isDatabaseUnavailable(new AggregateError([withCode("refused", "ECONNREFUSED")], "connect failed"))).toBe(false);
    expect(toConnectError(new TypeError("fetch failed", { cause: withCode("connect ETIMEDOUT 203.0.113.7:443", "ETIMEDOUT") })).code).toBe(Code.Internal);
  });

  it("leaves query errors and our own faults alone", () => {
    expect(isDatabaseUnavailable(withCode("duplicate key value violates unique constraint", "23505"))).toBe(false);
    expect(isDatabaseUnavailable(withCode('relation "x" does not exist', "42P01"))).toBe(false);
    expect(isDatabaseUnavailable(new TypeError("x is undefined"))).toBe(false);
    expect(isDatabaseUnavailable("ECONNREFUSED")).toBe(false);
  });

  it("answers Unavailable (the gateway's 503), not Internal", () => {
    expect(toConnectError(fromDatabase(withCode("connect ECONNREFUSED 127.0.0.1:5432", "ECONNREFUSED"))).code).toBe(Code.Unavailable);
    expect(toConnectError(new TypeError("x is undefined")).code).toBe(Code.Internal);
  });
});
