import { defaultClientConditions, defaultServerConditions } from "vite";
import { defineConfig } from "vitest/config";

export default defineConfig({
  // The SDK packages (sdk/*) export their TypeScript sources under the "source" condition for in-repo use; published
  // consumers get dist/ through "import"/"types".
  resolve: { conditions: ["source", ...defaultClientConditions] },
  // Server-side code resolves packages as Node does: without the bundlers' "module" condition, which points some
  // packages (@opentelemetry/api 1.9) at builds Node cannot load (extensionless ESM imports).
  ssr: { resolve: { conditions: ["source", ...defaultServerConditions.filter((c) => c !== "module")], externalConditions: ["source"] } },
  test: {
    include: ["**/*.test.ts", "**/*.test.tsx"],
    exclude: ["**/node_modules/**", "**/dist/**", ".vestibule/**"],
    globalSetup: ["./deploy/src/vitest-global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: "forks",
    // Two cores: integration files start whole platforms, so run at most two files at once.
    maxWorkers: 2,
  },
});
