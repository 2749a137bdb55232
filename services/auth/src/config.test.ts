import { describe, expect, it } from "vitest";
import { ConfigError } from "@vestibule/shared/config";
import { readAuthConfig } from "./config.ts";

describe("auth configuration", () => {
  it("has brute-force protection on by default with short growing windows", () => {
    expect(readAuthConfig({})).toEqual({
      rateLimitEnabled: "on",
      accountThreshold: 5,
      ipFailuresPerDay: 100,
      baseSeconds: 1,
      maxSeconds: 60,
      resetSeconds: 900,
      resetCodeMinMillis: 400,
    });
  });

  it("reads overrides and lists every bad value at once", () => {
    expect(readAuthConfig({ VESTIBULE_AUTH_RATE_LIMIT: "off", VESTIBULE_AUTH_RATE_LIMIT_ACCOUNT_FAILURES: "3" })).toMatchObject({ rateLimitEnabled: "off", accountThreshold: 3 });
    try {
      readAuthConfig({ VESTIBULE_AUTH_RATE_LIMIT: "maybe", VESTIBULE_AUTH_RATE_LIMIT_MAX_SECONDS: "0" });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).problems).toHaveLength(2);
    }
  });
});
