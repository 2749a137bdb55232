import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Code, ConnectError, createClient, createRouterTransport, type Interceptor } from "@connectrpc/connect";
import { Health } from "@vestibule/proto/grpc/health/v1/health";
import { KnownErrorDetailSchema } from "@vestibule/proto/error/v1/error";
import { describe, expect, it } from "vitest";
import {
  KNOWN_ERRORS,
  KNOWN_ERROR_CODES,
  KnownError,
  StatusError,
  fromConnectError,
  httpStatusForConnectCode,
  isKnownError,
  isStatusError,
  knownError,
  knownErrorCodeIsA,
  knownErrorMessage,
  statusError,
  toConnectError,
  type ConcreteKnownErrorCode,
  type KnownErrorCode,
} from "./index.ts";

const here = fileURLToPath(new URL(".", import.meta.url));
const CONTRACT_ERRORS_MD = join(process.env.VESTIBULE_CONTRACT_DIR ?? "/work/shared/contract", "errors.md");
const CONTRACT_LATEST_SDK_MD = join(process.env.VESTIBULE_CONTRACT_DIR ?? "/work/shared/contract", "latest-sdk.md");

const concreteCodes = KNOWN_ERROR_CODES.filter((c): c is ConcreteKnownErrorCode => !KNOWN_ERRORS[c].abstract);
const abstractCodes = KNOWN_ERROR_CODES.filter((c) => KNOWN_ERRORS[c].abstract);

/** One sample value per input key used anywhere in the catalogue. */
const SAMPLE_INPUT: Record<string, unknown> = {
  message: "Sample message.",
  overload_errors: [{ code: "SCHEMA_ERROR" }, "plain"],
  originalErrorCode: "SOME_FUTURE_CODE",
  accessType: "root",
  request_type: "client",
  actual_access_type: "client",
  allowed_access_types: ["server", "admin"],
  project_id: "internal",
  expired_at_millis: 1_700_000_000_000,
  branch_id: "dev",
  expected_project_id: "p1",
  actual_project_id: "p2",
  email: "a@example.com",
  would_work_if_email_was_verified: true,
  user_id: "u1",
  min_length: 8,
  maxLength: 70,
  attempt_code: "attempt",
  primary_email: "b@example.com",
  type: "email",
  contact_channel_value: "a@example.com",
  error: "boom",
  code: "ERROR_CEREMONY_ABORTED",
  client_id: "internal",
  scope: "openid",
  provider_id: "github",
  team_id: "t1",
  permission_id: "read",
  expected_scope: "team",
  actual_scope: "project",
  expected_type: "user",
  actual_type: "team",
  item_id: "credits",
  customer_id: "c1",
  item_customer_type: "user",
  actual_customer_type: "team",
  offer_id: "pro",
  access_type: "client",
  offer_customer_type: "user",
  quantity: 5,
  store_id: "s1",
  hashed_key: "h1",
  restricted_reason: { type: "anonymous" },
  provider: "github",
  details: "No token.",
  product_id: "pro",
  context: null,
  product_customer_type: "user",
  customer_type: "user",
  one_time_purchase_id: "otp1",
  subscription_id: "sub1",
  subscription_invoice_id: "inv1",
  expires_at: "2026-01-01T00:00:00.000Z",
  email_id: "e1",
  status: "SENT",
  timeout_ms: 1000,
};

function sampleInput(code: ConcreteKnownErrorCode): Record<string, unknown> | undefined {
  const { detailKeys, paramKeys } = KNOWN_ERRORS[code];
  const keys = [...detailKeys, ...paramKeys];
  if (keys.length === 0) return undefined;
  return Object.fromEntries(keys.map((k) => [k, SAMPLE_INPUT[k]]));
}

/** Untyped factory for table-driven tests. */
const anyKnownError = knownError as (code: ConcreteKnownErrorCode, input?: unknown) => KnownError;

// ---------------------------------------------------------------------------------------------------------------

describe("catalogue", () => {
  it("has unique UPPER_SNAKE codes", () => {
    expect(new Set(KNOWN_ERROR_CODES).size).toBe(KNOWN_ERROR_CODES.length);
    for (const code of KNOWN_ERROR_CODES) {
      expect(code).toMatch(/^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$/);
      expect(KNOWN_ERRORS[code].code).toBe(code);
    }
  });

  it("holds the 111 sendable codes of the seed-era contract, the 27 the current SDK added, and 11 abstract parents", () => {
    expect(concreteCodes).toHaveLength(138);
    expect(abstractCodes).toHaveLength(11);
    // 2.8.41 knows 122 codes (111 + 11 parents), 2.8.108 knows 144 (latest-sdk.md F).
    expect(KNOWN_ERROR_CODES.filter((c) => KNOWN_ERRORS[c].generations.includes("seed"))).toHaveLength(122);
    expect(KNOWN_ERROR_CODES.filter((c) => KNOWN_ERRORS[c].generations.includes("current"))).toHaveLength(144);
    expect(KNOWN_ERRORS.OFFER_DOES_NOT_EXIST.generations).toEqual(["seed"]);
    expect(KNOWN_ERRORS.PRODUCT_DOES_NOT_EXIST.generations).toEqual(["current"]);
    expect(KNOWN_ERRORS.USER_NOT_FOUND.generations).toEqual(["seed", "current"]);
  });

  it("maps statuses to the agreed Connect codes", () => {
    const expected: Record<number, Code> = {
      400: Code.InvalidArgument,
      401: Code.Unauthenticated,
      403: Code.PermissionDenied,
      404: Code.NotFound,
      408: Code.DeadlineExceeded,
      409: Code.AlreadyExists,
      500: Code.Internal,
      503: Code.Unavailable,
    };
    for (const code of KNOWN_ERROR_CODES) {
      const entry = KNOWN_ERRORS[code];
      expect(entry.connectCode, code).toBe(expected[entry.httpStatus]);
    }
    expect(KNOWN_ERRORS.UNSUPPORTED_ERROR.httpStatus).toBe(500);
    expect(KNOWN_ERRORS.OUTER_OAUTH_TIMEOUT.connectCode).toBe(Code.DeadlineExceeded);
  });

  it("gives every code an abstract parent chain, a doc line, and abstract codes neither message nor details", () => {
    for (const code of KNOWN_ERROR_CODES) {
      const entry = KNOWN_ERRORS[code];
      expect(entry.doc.trim(), code).not.toBe("");
      expect(entry.doc, code).not.toContain("\n");
      expect(entry.parents[0]).toBe(entry.parent);
      for (const p of entry.parents) expect(KNOWN_ERRORS[p].abstract, `${code} → ${p}`).toBe(true);
      if (entry.abstract) {
        expect(entry.message).toBeUndefined();
        expect(entry.detailKeys).toEqual([]);
      }
    }
    expect(KNOWN_ERRORS.ACCESS_TOKEN_EXPIRED.parents).toEqual([
      "INVALID_ACCESS_TOKEN",
      "INVALID_SESSION_AUTHENTICATION",
      "SESSION_AUTHENTICATION_ERROR",
    ]);
    expect(KNOWN_ERRORS.UNPARSABLE_ADMIN_ACCESS_TOKEN.parents).toEqual([
      "INVALID_ADMIN_ACCESS_TOKEN",
      "INVALID_PROJECT_AUTHENTICATION",
      "PROJECT_AUTHENTICATION_ERROR",
    ]);
    expect(KNOWN_ERRORS.USER_NOT_FOUND.parents).toEqual([]);
  });

  it("builds a non-empty message for every sendable code from sample input", () => {
    for (const code of concreteCodes) {
      for (const key of [...KNOWN_ERRORS[code].detailKeys, ...KNOWN_ERRORS[code].paramKeys]) {
        expect(SAMPLE_INPUT, `sample for ${code}.${key}`).toHaveProperty(key);
      }
      const message = (KNOWN_ERRORS[code].message as (input: unknown) => string)(sampleInput(code));
      expect(typeof message, code).toBe("string");
      expect(message.trim(), code).not.toBe("");
    }
  });

  it("spells the detail keys exactly as the contract does", () => {
    expect(KNOWN_ERRORS.PASSWORD_TOO_LONG.detailKeys).toEqual(["maxLength"]);
    expect(KNOWN_ERRORS.PASSWORD_TOO_SHORT.detailKeys).toEqual(["min_length"]);
    expect(KNOWN_ERRORS.UNSUPPORTED_ERROR.detailKeys).toEqual(["originalErrorCode"]);
    expect(KNOWN_ERRORS.USER_EMAIL_ALREADY_EXISTS.detailKeys).toEqual(["email", "would_work_if_email_was_verified"]);
    expect(KNOWN_ERRORS.INSUFFICIENT_ACCESS_TYPE.detailKeys).toEqual(["actual_access_type", "allowed_access_types"]);
    expect(KNOWN_ERRORS.ACCESS_TYPE_WITHOUT_PROJECT_ID.detailKeys).toEqual(["request_type"]);
    expect(KNOWN_ERRORS.ALL_OVERLOADS_FAILED.detailKeys).toEqual(["overload_errors"]);
    expect(KNOWN_ERRORS.CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE.detailKeys).toEqual([
      "type",
      "contact_channel_value",
      "would_work_if_email_was_verified",
    ]);
    // Message-only inputs are not details.
    expect(KNOWN_ERRORS.INVALID_ACCESS_TYPE.detailKeys).toEqual([]);
    expect(KNOWN_ERRORS.INVALID_ACCESS_TYPE.paramKeys).toEqual(["accessType"]);
    expect(KNOWN_ERRORS.BODY_PARSING_ERROR.detailKeys).toEqual([]);
    expect(KNOWN_ERRORS.USER_NOT_FOUND.detailKeys).toEqual([]);
  });

  it("renders Stack's exact messages", () => {
    expect(knownErrorMessage("INSUFFICIENT_ACCESS_TYPE", { actual_access_type: "client", allowed_access_types: ["server", "admin"] })).toBe(
      "The x-stack-access-type header must be 'server' or 'admin', but was 'client'.",
    );
    expect(knownErrorMessage("TEAM_NOT_FOUND", { team_id: "abc" })).toBe("Team abc not found.");
    expect(knownErrorMessage("PASSWORD_TOO_SHORT", { min_length: 8 })).toBe("Password too short. Minimum length is 8.");
    expect(knownErrorMessage("PASSWORD_TOO_LONG", { maxLength: 70 })).toBe("Password too long. Maximum length is 70.");
    expect(knownErrorMessage("USER_EMAIL_ALREADY_EXISTS", { email: "a@b.c", would_work_if_email_was_verified: false })).toBe(
      'A user with email "a@b.c" already exists.',
    );
    expect(knownErrorMessage("USER_EMAIL_ALREADY_EXISTS", { email: "a@b.c", would_work_if_email_was_verified: true })).toBe(
      'A user with email "a@b.c" already exists but the email is not verified. Please login to your existing account with the method you used to sign up, and then verify your email to sign in with this login method.',
    );
    expect(knownErrorMessage("INVALID_ACCESS_TYPE", { accessType: "root" })).toBe(
      "The x-stack-access-type header must be 'client', 'server', or 'admin', but was 'root'.",
    );
    expect(knownErrorMessage("ACCESS_TYPE_WITHOUT_PROJECT_ID", { request_type: "server" })).toBe(
      "The x-stack-access-type header was 'server', but the x-stack-project-id header was not provided.\n\n" +
        "For more information, see the docs on REST API authentication: https://docs.stack-auth.com/rest-api/overview#authentication",
    );
    expect(knownErrorMessage("ACCESS_TOKEN_EXPIRED", { expired_at_millis: null })).toBe(
      "Access token has expired. Please refresh it and try again.",
    );
    expect(knownErrorMessage("ACCESS_TOKEN_EXPIRED", { expired_at_millis: Date.UTC(2025, 0, 2, 3, 4, 5) })).toBe(
      "Access token has expired. Please refresh it and try again. (The access token expired at 2025-01-02T03:04:05.000Z.)",
    );
    // Stack's e2e snapshots of the pinned era.
    expect(knownErrorMessage("OFFER_DOES_NOT_EXIST", { offer_id: "test-offer", access_type: "client" })).toBe(
      `Offer with ID "test-offer" does not exist or you don't have permissions to access it.`,
    );
    expect(
      knownErrorMessage("OFFER_CUSTOMER_TYPE_DOES_NOT_MATCH", {
        offer_id: "test-offer",
        customer_id: "c1",
        offer_customer_type: "user",
        actual_customer_type: "team",
      }),
    ).toBe(
      'The team with ID "c1" is not a valid customer for the inline offer that has been passed in. The offer is configured to only be available for user customers, but the customer is a team.',
    );
    expect(knownErrorMessage("ALL_OVERLOADS_FAILED", { overload_errors: [{ a: 1 }, "x"] })).toBe(
      'This endpoint has multiple overloads, but they all failed to process the request.\n\n  Overload 1: {\n    "a": 1\n  }\n  \n  Overload 2: "x"',
    );
    expect(knownErrorMessage("CLI_AUTH_EXPIRED_ERROR")).toBe("CLI authentication request expired. Please try again.");
    expect(knownErrorMessage("USER_NOT_FOUND")).toBe("User not found.");
  });
});

describe("ERRORS.md", () => {
  const rows = readFileSync(join(here, "ERRORS.md"), "utf8")
    .split("\n")
    .filter((line) => line.startsWith("| `"))
    .map((line) => line.split(" | ").map((cell) => cell.replace(/^\| /, "").trim()));
  const documented = rows.map((cells) => cells[0]!.replaceAll("`", ""));

  it("lists every catalogue code, and only those, once each", () => {
    expect(new Set(documented).size).toBe(documented.length);
    for (const code of KNOWN_ERROR_CODES) expect(documented, `${code} missing from ERRORS.md`).toContain(code);
    for (const code of documented) expect(KNOWN_ERROR_CODES, `${code} is in ERRORS.md but not in the catalogue`).toContain(code);
  });

  it("agrees with the catalogue on status, detail keys and parent", () => {
    for (const [codeCell, http, details, parent] of rows) {
      const entry = KNOWN_ERRORS[codeCell!.replaceAll("`", "") as KnownErrorCode];
      expect(http, entry.code).toBe(entry.abstract ? "—" : String(entry.httpStatus));
      expect(details === "—" ? [] : details!.split(", ").map((k) => k.replaceAll("`", "")), entry.code).toEqual(entry.detailKeys);
      expect(parent === "—" ? undefined : parent!.replaceAll("`", ""), entry.code).toBe(entry.parent);
    }
  });
});

describe.runIf(existsSync(CONTRACT_ERRORS_MD))("contract/errors.md", () => {
  const text = existsSync(CONTRACT_ERRORS_MD) ? readFileSync(CONTRACT_ERRORS_MD, "utf8") : "";
  const tableRows = text
    .split("\n")
    .filter((line) => line.startsWith("| `"))
    .map((line) => line.split(" | ").map((cell) => cell.replace(/^\| /, "").replace(/ \|$/, "").trim()));
  const ticked = (cell: string) => [...cell.matchAll(/`([A-Za-z][A-Za-z0-9_]*)`/g)].map((m) => m[1]!);
  const codesIn = (cell: string) => [...cell.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]! as KnownErrorCode);

  it("names exactly the catalogue's codes, with latest-sdk.md F's additions", () => {
    const named = new Set([...text.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]!));
    named.delete("INFINITE_LOOP_DETECTED"); // a 508 text marker, not a known error
    // latest-sdk.md F: "Added (status): `CODE` (status[, {details}]), ..." up to "Removed in 2.8.108".
    const latest = existsSync(CONTRACT_LATEST_SDK_MD) ? readFileSync(CONTRACT_LATEST_SDK_MD, "utf8") : "";
    const added = /Added \(status\):([\s\S]*?)Removed in 2\.8\.108/.exec(latest)?.[1] ?? "";
    const addedCodes = [...added.matchAll(/`([A-Z][A-Z0-9_]+)`\s+\((\d{3})/g)];
    expect(addedCodes).toHaveLength(27);
    for (const [, code, status] of addedCodes) {
      expect(KNOWN_ERRORS[code as KnownErrorCode]?.httpStatus, code).toBe(Number(status));
      expect(KNOWN_ERRORS[code as KnownErrorCode].generations, code).toEqual(["current"]);
      named.add(code!);
    }
    for (const code of named) expect(KNOWN_ERROR_CODES, `${code} from the contract`).toContain(code);
    for (const code of KNOWN_ERROR_CODES) expect(named.has(code), `${code} not in the contract`).toBe(true);
  });

  it("agrees on status and detail keys (§4) and on the hierarchy (§3)", () => {
    let checked = 0;
    for (const [codes, second, third] of tableRows) {
      if (/^\d{3}$/.test(second!)) {
        const detailKeys = third === "—" ? [] : ticked(third!);
        for (const code of codesIn(codes!)) {
          const entry = KNOWN_ERRORS[code as KnownErrorCode];
          expect(entry.httpStatus, code).toBe(Number(second));
          expect([...entry.detailKeys].sort(), code).toEqual([...detailKeys].sort());
          checked++;
        }
      } else {
        const chain = codesIn(codes!);
        for (let i = 1; i < chain.length; i++) expect(KNOWN_ERRORS[chain[i]!].parent).toBe(chain[i - 1]);
        for (const child of codesIn(second!)) {
          expect(knownErrorCodeIsA(child, chain.at(-1)!), `${child} under ${chain.at(-1)}`).toBe(true);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(100);
  });
});

describe("KnownError", () => {
  it("serialises as {code, details, error} in that order", () => {
    const err = knownError("TEAM_MEMBERSHIP_NOT_FOUND", { team_id: "t1", user_id: "u1" });
    expect(Object.keys(err.toJSON())).toEqual(["code", "details", "error"]);
    expect(JSON.stringify(err)).toBe(
      '{"code":"TEAM_MEMBERSHIP_NOT_FOUND","details":{"team_id":"t1","user_id":"u1"},"error":"User u1 is not found in team t1."}',
    );
    expect(err.httpStatus).toBe(404);
    expect(err.message).toBe("User u1 is not found in team t1.");
  });

  it("omits details for codes without details, even when the message had inputs", () => {
    expect(JSON.stringify(knownError("USER_NOT_FOUND"))).toBe('{"code":"USER_NOT_FOUND","error":"User not found."}');
    const invalid = knownError("INVALID_ACCESS_TYPE", { accessType: "root" });
    expect(invalid.details).toBeUndefined();
    expect(Object.keys(invalid.toJSON())).toEqual(["code", "error"]);
    const parsing = new KnownError("BODY_PARSING_ERROR", undefined, "Invalid JSON in request body");
    expect(parsing.toJSON()).toEqual({ code: "BODY_PARSING_ERROR", error: "Invalid JSON in request body" });
  });

  it("keeps only the code's detail keys, in catalogue order", () => {
    const err = anyKnownError("USER_EMAIL_ALREADY_EXISTS", { would_work_if_email_was_verified: false, email: "a@b.c", extra: 1 });
    expect(Object.keys(err.details!)).toEqual(["email", "would_work_if_email_was_verified"]);
  });

  it("SCHEMA_ERROR: error == details.message", () => {
    const message = "Request validation failed on POST /api/v1/auth/password/update:\n  - body.old_password must be defined";
    const body = knownError("SCHEMA_ERROR", { message }).toJSON();
    expect(body).toEqual({ code: "SCHEMA_ERROR", details: { message }, error: message });
    expect(body.error).toBe(body.details.message);
  });

  it("refuses abstract and unknown codes", () => {
    expect(() => anyKnownError("INVALID_ACCESS_TOKEN" as ConcreteKnownErrorCode)).toThrow(TypeError);
    expect(() => anyKnownError("NOPE" as ConcreteKnownErrorCode)).toThrow(TypeError);
  });

  it("matches codes and abstract parents with isKnownError", () => {
    const err = knownError("ACCESS_TOKEN_EXPIRED", { expired_at_millis: null });
    expect(err).toBeInstanceOf(Error);
    expect(err).toBeInstanceOf(KnownError);
    expect(isKnownError(err)).toBe(true);
    expect(isKnownError(err, "ACCESS_TOKEN_EXPIRED")).toBe(true);
    expect(isKnownError(err, "INVALID_ACCESS_TOKEN")).toBe(true);
    expect(isKnownError(err, "SESSION_AUTHENTICATION_ERROR")).toBe(true);
    expect(isKnownError(err, "REFRESH_TOKEN_ERROR")).toBe(false);
    expect(isKnownError(err, "UNPARSABLE_ACCESS_TOKEN")).toBe(false);
    expect(isKnownError(new Error("x"))).toBe(false);
    expect(isKnownError(statusError(400, "x"))).toBe(false);
    expect(isKnownError({ code: "USER_NOT_FOUND" })).toBe(false);
  });
});

describe("StatusError", () => {
  it("is a plain-text error with a 4xx/5xx status", () => {
    const err = statusError(403, "Client can only list teams for their own user.");
    expect(err).toBeInstanceOf(StatusError);
    expect(isStatusError(err)).toBe(true);
    expect(isStatusError(knownError("USER_NOT_FOUND"))).toBe(false);
    expect(err.httpStatus).toBe(403);
    expect(err.message).toBe("Client can only list teams for their own user.");
    expect(() => statusError(200, "ok")).toThrow(RangeError);
  });
});

describe("Connect conversion", () => {
  it("round-trips a KnownError", () => {
    const original = knownError("INSUFFICIENT_ACCESS_TYPE", { actual_access_type: "client", allowed_access_types: ["server", "admin"] });
    const ce = toConnectError(original);
    expect(ce.code).toBe(Code.Unauthenticated);
    expect(ce.rawMessage).toBe(original.message);
    expect(ce.findDetails(KnownErrorDetailSchema)).toHaveLength(1);
    const back = fromConnectError(ce);
    expect(back).toBeInstanceOf(KnownError);
    const known = back as KnownError;
    expect(known.code).toBe(original.code);
    expect(known.details).toEqual(original.details);
    expect(known.message).toBe(original.message);
    expect(known.httpStatus).toBe(401);
    expect(JSON.stringify(known)).toBe(JSON.stringify(original));
  });

  it("round-trips codes without details and with message-only inputs", () => {
    for (const original of [knownError("USER_NOT_FOUND"), knownError("INVALID_ACCESS_TYPE", { accessType: "root" })]) {
      const back = fromConnectError(toConnectError(original)) as KnownError;
      expect(back.toJSON()).toEqual(original.toJSON());
      expect(back.details).toBeUndefined();
    }
  });

  it("round-trips a StatusError", () => {
    const ce = toConnectError(statusError(403, "Client can only list teams for their own user."));
    expect(ce.code).toBe(Code.PermissionDenied);
    const back = fromConnectError(ce);
    expect(back).toBeInstanceOf(StatusError);
    expect((back as StatusError).httpStatus).toBe(403);
    expect((back as StatusError).message).toBe("Client can only list teams for their own user.");
  });

  it("survives a real Connect call (details encoded on the wire)", async () => {
    // The same conversion the RPC server's interceptor applies.
    const convertErrors: Interceptor = (next) => async (req) => {
      try {
        return await next(req);
      } catch (err) {
        throw toConnectError(err);
      }
    };
    const transport = createRouterTransport(
      (router) => {
        router.service(Health, {
          check(req) {
            if (req.service === "known") throw knownError("TEAM_NOT_FOUND", { team_id: "t9" });
            if (req.service === "status") throw statusError(501, "Not implemented yet.");
            throw new Error("db password is hunter2");
          },
        });
      },
      { router: { interceptors: [convertErrors] } },
    );
    const client = createClient(Health, transport);
    const call = async (service: string) => client.check({ service }).then(() => undefined, (err: unknown) => err);

    const known = fromConnectError(await call("known")) as KnownError;
    expect(known.toJSON()).toEqual({ code: "TEAM_NOT_FOUND", details: { team_id: "t9" }, error: "Team t9 not found." });

    const status = fromConnectError(await call("status")) as StatusError;
    expect(status).toBeInstanceOf(StatusError);
    expect([status.httpStatus, status.message]).toEqual([501, "Not implemented yet."]);

    const internal = (await call("other")) as ConnectError;
    expect(internal.code).toBe(Code.Internal);
    expect(internal.rawMessage).toBe("Internal error");
    expect(JSON.stringify(internal) + internal.message).not.toContain("hunter2");
    expect(fromConnectError(internal)).toBeUndefined();
  });

  it("turns unknown errors into a bare Internal, keeping the original only as cause", () => {
    const secret = new Error("db password is hunter2");
    const ce = toConnectError(secret);
    expect(ce.code).toBe(Code.Internal);
    expect(ce.rawMessage).toBe("Internal error");
    expect(ce.message).not.toContain("hunter2");
    expect(ce.details).toEqual([]);
    expect(ce.cause).toBe(secret);
    expect(fromConnectError(ce)).toBeUndefined();
    expect(toConnectError("a string").code).toBe(Code.Internal);
  });

  it("passes existing ConnectErrors through", () => {
    const ce = new ConnectError("nope", Code.NotFound);
    expect(toConnectError(ce)).toBe(ce);
    expect(fromConnectError(ce)).toBeUndefined();
  });

  it("maps a detail with a code this build does not know to UNSUPPORTED_ERROR", () => {
    const ce = new ConnectError("x", Code.InvalidArgument, undefined, [
      { desc: KnownErrorDetailSchema, value: { code: "BRAND_NEW_CODE", message: "x", detailsJson: "{}" } },
    ]);
    const back = fromConnectError(ce) as KnownError<"UNSUPPORTED_ERROR">;
    expect(back.code).toBe("UNSUPPORTED_ERROR");
    expect(back.details).toEqual({ originalErrorCode: "BRAND_NEW_CODE" });
    expect(back.httpStatus).toBe(500);
  });

  it("maps Connect codes without details to HTTP statuses", () => {
    const table: [Code, number][] = [
      [Code.Unavailable, 503],
      [Code.DeadlineExceeded, 504],
      [Code.Unauthenticated, 401],
      [Code.PermissionDenied, 403],
      [Code.NotFound, 404],
      [Code.InvalidArgument, 400],
      [Code.FailedPrecondition, 400],
      [Code.OutOfRange, 400],
      [Code.AlreadyExists, 409],
      [Code.Aborted, 409],
      [Code.ResourceExhausted, 429],
      [Code.Unimplemented, 501],
      [Code.Internal, 500],
      [Code.Unknown, 500],
      [Code.DataLoss, 500],
      [Code.Canceled, 500],
    ];
    for (const [code, status] of table) expect(httpStatusForConnectCode(code), Code[code]).toBe(status);
  });
});

// Compile-time checks (run by `tsc`, never executed).
export function _typeChecks(team_id: string): void {
  knownError("TEAM_NOT_FOUND", { team_id });
  knownError("USER_NOT_FOUND");
  knownError("CLI_AUTH_EXPIRED_ERROR");
  // @ts-expect-error wrong detail key
  knownError("TEAM_NOT_FOUND", { teamId: team_id });
  // @ts-expect-error missing details
  knownError("TEAM_NOT_FOUND");
  // @ts-expect-error unexpected extra key
  knownError("TEAM_NOT_FOUND", { team_id, extra: 1 });
  // @ts-expect-error codes without details take no second argument
  knownError("USER_NOT_FOUND", {});
  // @ts-expect-error abstract codes are never thrown
  knownError("INVALID_ACCESS_TOKEN");
  // @ts-expect-error the key is maxLength
  knownError("PASSWORD_TOO_LONG", { max_length: 70 });
  // @ts-expect-error access types are client/server/admin
  knownError("INSUFFICIENT_ACCESS_TYPE", { actual_access_type: "root", allowed_access_types: ["server"] });
}
