import { describe, expect, it } from "vitest";
import { ConfigError, int, masterKeys, oneOf, readConfig, str, url } from "./index.ts";

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
