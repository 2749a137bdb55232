import type { Client } from "@connectrpc/connect";
import { PermissionService } from "@vestibule/proto/teams_permissions/v1/permission_service";
import { createServiceClient } from "@vestibule/shared/rpc";
import { peerUrl, type ServiceContext } from "@vestibule/shared/service";
import type { TeamDirectory } from "./api-keys.ts";
import { isPeerError, type IdentityClients } from "../peers.ts";

/** The permission that lets a member see, create and revoke a team's API keys. */
export const MANAGE_API_KEYS = "$manage_api_keys";

/** At most this many people are e-mailed about one leaked team key (a warning is logged past it). */
export const MAX_TEAM_KEY_RECIPIENTS = 100;

/**
 * Who owns a team's API keys, asked of the teams-permissions service (ListTeamPermissions, as a trusted service
 * caller) and identity (the e-mail addresses):
 *
 * The owners of a team key are the team's members who hold `$manage_api_keys` in it, directly or through a
 * permission that contains it (`team_admin` by default): exactly the people who may see, create and revoke the
 * team's keys, so the ones who can act on the warning. Each gets the e-mail at their primary address (as a user key's
 * owner does); members without a primary e-mail, and users deleted meanwhile, are skipped. At most
 * MAX_TEAM_KEY_RECIPIENTS, in user id order. A team without any such member (or a team deleted meanwhile) has nobody
 * to tell: the key is revoked all the same and a warning is logged.
 *
 * A failing call (a service down) fails the revocation before anything changes, so the secret scanner's retry
 * revokes the key and sends the e-mails together.
 */
export function teamsServiceDirectory(
  ctx: Pick<ServiceContext, "env" | "config" | "log">,
  identity: Pick<IdentityClients, "users">,
  permissions: Pick<Client<typeof PermissionService>, "listTeamPermissions"> = createServiceClient(PermissionService, {
    baseUrl: peerUrl("teams_permissions", ctx.env),
    caller: "auth",
    secret: ctx.config.serviceSecret,
  }),
): TeamDirectory {
  return {
    async apiKeyManagers(projectId, teamId) {
      const { permissions: held } = await permissions.listTeamPermissions({ projectId, teamId, permissionId: MANAGE_API_KEYS, recursive: true });
      const userIds = [...new Set(held.filter((p) => p.teamId === teamId).map((p) => p.userId))].sort();
      if (userIds.length > MAX_TEAM_KEY_RECIPIENTS) {
        ctx.log.warn({ project_id: projectId, team_id: teamId, managers: userIds.length }, `only the first ${MAX_TEAM_KEY_RECIPIENTS} key managers of the team are e-mailed`);
      }
      const found = await Promise.all(
        userIds.slice(0, MAX_TEAM_KEY_RECIPIENTS).map(async (userId) => {
          try {
            const { user } = await identity.users.getUser({ projectId, userId });
            return user?.primaryEmail ? { userId: user.id, email: user.primaryEmail } : undefined;
          } catch (err) {
            if (isPeerError(err, "USER_NOT_FOUND")) return undefined;
            throw err;
          }
        }),
      );
      const recipients = found.filter((r): r is { userId: string; email: string } => r !== undefined);
      return recipients;
    },
  };
}
