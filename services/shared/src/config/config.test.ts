import { describe, expect, it } from "vitest";
import { assertDevelopmentOnLoopback, ConfigError, int, masterKeys, oneOf, readConfig, str, url } from "./index.ts";

const spec = {
  databaseUrl: str("DATABASE_URL", "db"),
  port: int("PORT", "port", { default: 8111, min: 0, max: 65535 }),
  mode: oneOf("MODE", "mode", ["development", "production"], "development"),
  publicUrl: url("PUBLIC_URL", "url", { default: "http://localhost:8102/" }),
  keys: masterKeys("KEYS", "keys"),
};

describe("readConfig", () => {
  it("applies defaults and parses values", () => {
    const key = Buffer.alloc(32, 7).toString("base64");
    const c = readConfig(spec, { DATABASE_URL: "postgres://x", KEYS: `k1:${key}` });
    expect(c).toMatchObject({ databaseUrl: "postgres://x", port: 8111, mode: "development", publicUrl: "http://localhost:8102" });
    expect(c.keys[0]!.id).toBe("k1");
  });
  it("lists every problem at once", () => {
    try {
      readConfig(spec, { PORT: "eighty", MODE: "staging", PUBLIC_URL: "not a url", KEYS: "k1:c2hvcnQ=" });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      const problems = (err as ConfigError).problems;
      expect(problems).toHaveLength(5);
      expect(problems.join("\n")).toMatch(/DATABASE_URL is required/);
      expect(problems.join("\n")).toMatch(/PORT must be an integer/);
      expect(problems.join("\n")).toMatch(/MODE must be one of development, production/);
      expect(problems.join("\n")).toMatch(/PUBLIC_URL must be a URL/);
      expect(problems.join("\n")).toMatch(/KEYS entry 1 \(k1\): key must be 32 bytes/);
    }
  });
});

describe("the service secret at start-up", () => {
  it("refuses the placeholder shipped in deploy/ and a low-entropy secret, naming the variable", async () => {
    const { commonConfigSpec } = await import("../service/index.ts"); // the gateway uses the same check (gateway/src/config.ts)
    const base = { DATABASE_URL: "postgres://x@127.0.0.1/db", VESTIBULE_MASTER_KEYS: `k1:${Buffer.alloc(32, 7).toString("base64")}` };
    for (const secret of ["CHANGE-ME-at-least-32-random-characters", "a".repeat(64)]) {
      expect(() => readConfig(commonConfigSpec(8110), { ...base, VESTIBULE_SERVICE_SECRET: secret })).toThrow(/VESTIBULE_SERVICE_SECRET/);
    }
    const good = "f3a9c1d27b6e4058a1c9d3e7f20b5a6c8d1e4f7a0b3c6d9e2f5a8b1c4d7e0f3a";
    expect(readConfig(commonConfigSpec(8110), { ...base, VESTIBULE_SERVICE_SECRET: good }).serviceSecret).toBe(good);
  });
});

describe("VESTIBULE_MODE", () => {
  it("defaults to production, and development is refused on anything but loopback", async () => {
    const { commonConfigSpec } = await import("../service/index.ts");
    const env = {
      DATABASE_URL: "postgres://x@127.0.0.1/db",
      VESTIBULE_MASTER_KEYS: `k1:${Buffer.alloc(32, 7).toString("base64")}`,
      VESTIBULE_SERVICE_SECRET: "f3a9c1d27b6e4058a1c9d3e7f20b5a6c8d1e4f7a0b3c6d9e2f5a8b1c4d7e0f3a",
    };
    expect(readConfig(commonConfigSpec(8110), env).mode).toBe("production");
    for (const host of ["127.0.0.1", "::1", "localhost", "127.0.0.2"]) expect(() => assertDevelopmentOnLoopback({ mode: "development", host })).not.toThrow();
    for (const host of ["0.0.0.0", "10.0.0.5", "::", "api.example.com"]) {
      expect(() => assertDevelopmentOnLoopback({ mode: "development", host })).toThrow(ConfigError);
      expect(() => assertDevelopmentOnLoopback({ mode: "production", host })).not.toThrow();
    }
  });
});
