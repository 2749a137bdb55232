/** The production frontends server's environment: every problem listed at once; defaults for the hosted pages. */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { frontendsEnv } from "../src/frontends-main.ts";

describe("frontendsEnv", () => {
  it("lists every problem at once", () => {
    expect(() => frontendsEnv({ VESTIBULE_PUBLIC_URL: "auth.example.com", VESTIBULE_MODE: "staging", PORT: "99999", VESTIBULE_HANDLER_PROJECT_ID: "p1" })).toThrow(
      /VESTIBULE_PUBLIC_URL[\s\S]*VESTIBULE_DASHBOARD_PUBLISHABLE_CLIENT_KEY[\s\S]*VESTIBULE_HANDLER_PUBLISHABLE_CLIENT_KEY[\s\S]*VESTIBULE_MODE[\s\S]*PORT/,
    );
  });

  it("serves the internal project's pages by default, in production mode", () => {
    const env = frontendsEnv({ VESTIBULE_PUBLIC_URL: "https://auth.example.com/", VESTIBULE_DASHBOARD_PUBLISHABLE_CLIENT_KEY: "pck_1" });
    expect(env).toEqual({
      port: 8101,
      host: "127.0.0.1",
      config: {
        apiUrl: "https://auth.example.com",
        internalProjectId: "internal",
        internalPublishableClientKey: "pck_1",
        handlerProjectId: "internal",
        handlerPublishableClientKey: "pck_1",
        mode: "production",
      },
      manifest: undefined,
    });
  });

  it("reads a runtime manifest that puts the remotes elsewhere", () => {
    const dir = mkdtempSync(join(tmpdir(), "vestibule-manifest-"));
    try {
      const manifest = { handler: { name: "handler", entry: "https://cdn.example.com/handler/mf-manifest.json" }, areas: [] };
      writeFileSync(join(dir, "remotes.json"), JSON.stringify(manifest));
      writeFileSync(join(dir, "bad.json"), JSON.stringify({ areas: [] }));
      const base = { VESTIBULE_PUBLIC_URL: "https://auth.example.com", VESTIBULE_DASHBOARD_PUBLISHABLE_CLIENT_KEY: "pck_1" };
      expect(frontendsEnv({ ...base, VESTIBULE_REMOTES_MANIFEST: join(dir, "remotes.json") }).manifest).toEqual(manifest);
      expect(() => frontendsEnv({ ...base, VESTIBULE_REMOTES_MANIFEST: join(dir, "bad.json") })).toThrow(/needs handler.entry/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
