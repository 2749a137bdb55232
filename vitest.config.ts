import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["**/*.test.ts"],
    exclude: ["**/node_modules/**", "**/dist/**", ".vestibule/**"],
    globalSetup: ["./deploy/src/vitest-global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: "forks",
    // Two cores: integration files start whole platforms, so run at most two files at once.
    maxWorkers: 2,
  },
});
