import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { TeamInvitationService } from "@vestibule/proto/teams_permissions/v1/invitation_service";
import { PermissionDefinitionService } from "@vestibule/proto/teams_permissions/v1/permission_definition_service";
import { PermissionService } from "@vestibule/proto/teams_permissions/v1/permission_service";
import { TeamMembershipService } from "@vestibule/proto/teams_permissions/v1/team_membership_service";
import { TeamService } from "@vestibule/proto/teams_permissions/v1/team_service";
import type { ServiceDefinition } from "@vestibule/shared/service";
import { startConsumers } from "./consumers.ts";
import { createTeamInvitationService } from "./invitation-service.ts";
import { startJanitor } from "./janitor.ts";
import { createPermissionDefinitionService } from "./permission-definition-service.ts";
import { createPermissionService } from "./permission-service.ts";
import { teamsRuntime } from "./runtime.ts";
import { createTeamMembershipService } from "./team-membership-service.ts";
import { createTeamService } from "./team-service.ts";

/**
 * The teams-permissions service: teams, memberships and member profiles, invitations, permission grants and checks,
 * and the validation of permission-definition writes. Schema `teams_permissions`.
 *
 * Decisions (see the doc comments of the files named):
 *  - Permission definitions stay in the project configuration owned by identity (`rbac.permissions`,
 *    `rbac.defaultPermissions`), the single source of truth that `GET /internal/config`, the admin project view and a
 *    config override all see. This service validates definition writes and applies them through identity
 *    (permission-definition-service.ts), owns the grants, and serves checks from a closure of the definition graph
 *    computed once per project configuration version and dropped by identity.project.* events (project-settings.ts,
 *    domain/rbac.ts).
 *  - `selected_team_id` belongs to identity. Creating a team with a creator (also the personal team on sign-up)
 *    selects it through identity's UpdateUser inside the creating transaction; identity clears a selection from
 *    teams_permissions.team.deleted.v1 and .membership.removed.v1 (it consumes them).
 *  - Invitation codes live in this service's own table with the contract's verification-code rules
 *    (domain/invitation-codes.ts explains why not the auth service's store).
 *  - Invitation e-mails are asked for with teams_permissions.email.requested.v1 through the outbox (rendered with a
 *    default body here; the e-mail service records and delivers them).
 * Consumes identity.user.created/deleted.v1 and identity.project.deleted.v1 (consumers.ts).
 */
export const teamsPermissionsService: ServiceDefinition = {
  name: "teams_permissions",
  migrationsDir: join(dirname(fileURLToPath(import.meta.url)), "..", "migrations"),
  serviceNames: [
    TeamService.typeName,
    TeamMembershipService.typeName,
    PermissionService.typeName,
    PermissionDefinitionService.typeName,
    TeamInvitationService.typeName,
  ],
  routes(router, ctx) {
    const rt = teamsRuntime(ctx);
    router.service(TeamService, createTeamService(rt));
    router.service(TeamMembershipService, createTeamMembershipService(rt));
    router.service(PermissionService, createPermissionService(rt));
    router.service(PermissionDefinitionService, createPermissionDefinitionService(rt));
    router.service(TeamInvitationService, createTeamInvitationService(rt));
  },
  async start(ctx) {
    const rt = teamsRuntime(ctx);
    const stopConsumers = await startConsumers(rt);
    const stopJanitor = startJanitor(ctx);
    return async () => {
      await stopJanitor();
      await stopConsumers();
    };
  },
};
