import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ServiceDefinition } from "@vestibule/shared/service";

/**
 * The vault service (data-vault stores of client-encrypted values).
 * Its own schema (`vault`) holds the runtime tables (outbox, processed events, data keys) from the first start;
 * its domain RPCs arrive with their issues. It already serves the gRPC health protocol and refuses unauthenticated calls.
 */
export const vaultService: ServiceDefinition = {
  name: "vault",
  migrationsDir: join(dirname(fileURLToPath(import.meta.url)), "..", "migrations"),
  serviceNames: [],
  routes() {},
};
