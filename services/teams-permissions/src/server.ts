import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ServiceDefinition } from "@vestibule/shared/service";

/**
 * The teams-permissions service (teams, memberships, invitations, permission definitions and grants).
 * Its own schema (`teams_permissions`) holds the runtime tables (outbox, processed events, data keys) from the first start;
 * its domain RPCs arrive with their issues. It already serves the gRPC health protocol and refuses unauthenticated calls.
 */
export const teamsPermissionsService: ServiceDefinition = {
  name: "teams_permissions",
  migrationsDir: join(dirname(fileURLToPath(import.meta.url)), "..", "migrations"),
  serviceNames: [],
  routes() {},
};
