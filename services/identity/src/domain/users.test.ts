import { describe, expect, it } from "vitest";
import {
  aggregateDeltas,
  lastUtcDays,
  loginMethodsOf,
  MetadataError,
  normalizeDisplayName,
  normalizeEmail,
  parseMetadataJson,
  substringPattern,
  type UserAggregateKey,
} from "./users.ts";

describe("input normalisation", () => {
  it("trims and lower-cases e-mails; stores empty display names as null", () => {
    expect(normalizeEmail("  Ada@Example.COM ")).toBe("ada@example.com");
    expect(normalizeDisplayName("")).toBeNull();
    expect(normalizeDisplayName(undefined)).toBeNull();
    expect(normalizeDisplayName(" Ada ")).toBe(" Ada ");
  });

  it("reads metadata texts: empty and null are null, JSON is canonicalised, anything else is refused by name", () => {
    expect(parseMetadataJson(undefined, "m")).toBeNull();
    expect(parseMetadataJson("", "m")).toBeNull();
    expect(parseMetadataJson("null", "m")).toBeNull();
    expect(parseMetadataJson(" null ", "m")).toBeNull();
    expect(parseMetadataJson('{ "a" : [1, 2] }', "m")).toBe('{"a":[1,2]}');
    expect(parseMetadataJson('"text"', "m")).toBe('"text"');
    expect(() => parseMetadataJson("{", "client_metadata")).toThrow(new MetadataError("client_metadata is not valid JSON"));
  });

  it("builds a LIKE pattern in which the query's wildcards are literal", () => {
    expect(substringPattern("Ada")).toBe("%ada%");
    expect(substringPattern("50%_off\\")).toBe("%50\\%\\_off\\\\%");
  });
});

describe("loginMethodsOf", () => {
  it("lists password, otp, passkey and each OAuth provider once", () => {
    expect(loginMethodsOf({ hasPassword: true, otpAuthEnabled: true, passkeyAuthEnabled: false, oauthProviderIds: ["GitHub", "github", "google"] })).toEqual([
      "github",
      "google",
      "otp",
      "password",
    ]);
    expect(loginMethodsOf({ hasPassword: false, otpAuthEnabled: false, passkeyAuthEnabled: false, oauthProviderIds: [] })).toEqual([]);
  });
});

describe("aggregateDeltas", () => {
  const user: UserAggregateKey = { projectId: "p", signUpDay: "2026-11-20", isAnonymous: false, countryCode: "US", loginMethods: ["password"] };

  it("counts a created user and uncounts a deleted one", () => {
    expect(aggregateDeltas(null, user)).toEqual({
      signUps: [["p", "2026-11-20", false, 1]],
      countries: [["p", "US", false, 1]],
      loginMethods: [["p", "password", false, 1]],
    });
    expect(aggregateDeltas(user, null)).toEqual({
      signUps: [["p", "2026-11-20", false, -1]],
      countries: [["p", "US", false, -1]],
      loginMethods: [["p", "password", false, -1]],
    });
  });

  it("moves an upgraded anonymous user and only touches what changed", () => {
    const anon = { ...user, isAnonymous: true, countryCode: null, loginMethods: [] };
    expect(aggregateDeltas(anon, user)).toEqual({
      signUps: [["p", "2026-11-20", false, 1], ["p", "2026-11-20", true, -1]],
      countries: [["p", "US", false, 1]],
      loginMethods: [["p", "password", false, 1]],
    });
    expect(aggregateDeltas(user, { ...user, loginMethods: ["otp", "password"] })).toEqual({
      signUps: [],
      countries: [],
      loginMethods: [["p", "otp", false, 1]],
    });
    expect(aggregateDeltas(user, user)).toEqual({ signUps: [], countries: [], loginMethods: [] });
  });
});

describe("lastUtcDays", () => {
  it("lists the UTC dates ending today, oldest first, across month ends", () => {
    expect(lastUtcDays(new Date("2026-03-02T23:30:00Z"), 4)).toEqual(["2026-02-27", "2026-02-28", "2026-03-01", "2026-03-02"]);
    expect(lastUtcDays(new Date("2026-03-02T00:10:00+02:00"), 1)).toEqual(["2026-03-01"]);
  });
});
