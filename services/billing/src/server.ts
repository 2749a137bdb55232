import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ServiceDefinition } from "@vestibule/shared/service";

/**
 * The billing service (items, offers, purchases and the Stripe link).
 * Its own schema (`billing`) holds the runtime tables (outbox, processed events, data keys) from the first start;
 * its domain RPCs arrive with their issues. It already serves the gRPC health protocol and refuses unauthenticated calls.
 */
export const billingService: ServiceDefinition = {
  name: "billing",
  migrationsDir: join(dirname(fileURLToPath(import.meta.url)), "..", "migrations"),
  serviceNames: [],
  routes() {},
};
