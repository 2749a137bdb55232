import type { ServiceImpl } from "@connectrpc/connect";
import { TeamMembershipService } from "@vestibule/proto/teams_permissions/v1/team_membership_service";
import { withTransaction } from "@vestibule/shared/db";
import { knownError, statusError } from "@vestibule/shared/errors";
import { isUuid } from "@vestibule/shared/ids";
import { clientUser, isClient, requireMembership, requireTeamPermission } from "./access.ts";
import { TeamsEvents } from "./events.ts";
import { requireUser } from "./peers.ts";
import type { TeamsRuntime } from "./runtime.ts";
import { addMember, memberMessage } from "./team-ops.ts";
import { memberStore } from "./store/member-store.ts";
import { teamStore } from "./store/team-store.ts";

/**
 * Memberships and member profiles (endpoints.md §4). Removing a membership takes the member's grants in the team
 * with it and emits membership.removed.v1, on which identity clears the user's selected team if it was this one.
 */
export function createTeamMembershipService(rt: TeamsRuntime): ServiceImpl<typeof TeamMembershipService> {
  const { ctx, identity, settings } = rt;
  const { pool, outbox } = ctx;

  return {
    async addTeamMember(req) {
      const { projectId, teamId, userId } = req;
      const s = await settings.get(projectId, Number(req.caller?.knownConfigVersion ?? 0));
      if (!isUuid(userId)) throw knownError("USER_NOT_FOUND");
      await requireUser(identity, projectId, userId);
      const added = await withTransaction(pool, async (tx) => {
        const team = isUuid(teamId) ? await teamStore.get(tx, projectId, teamId, true) : undefined;
        if (!team) throw knownError("TEAM_NOT_FOUND", { team_id: teamId });
        const result = await addMember(rt, tx, s, { projectId, teamId, userId: userId.toLowerCase(), kind: "member" });
        if (!result) throw knownError("TEAM_MEMBERSHIP_ALREADY_EXISTS");
        return result;
      });
      return { member: memberMessage(added.member), grantedPermissionIds: added.granted };
    },

    async removeTeamMember(req) {
      const { projectId, teamId, userId } = req;
      await withTransaction(pool, async (tx) => {
        if (isClient(req.caller)) {
          const me = clientUser(req.caller, () => knownError("CANNOT_GET_OWN_USER_WITHOUT_USER"));
          if (userId !== me) {
            const s = await settings.get(projectId, Number(req.caller?.knownConfigVersion ?? 0));
            await requireTeamPermission(identity, tx, s, projectId, teamId, me, "$remove_members");
          }
        }
        await requireMembership(identity, tx, projectId, teamId, userId, true);
        await memberStore.delete(tx, projectId, teamId, userId);
        await outbox.enqueue(tx, TeamsEvents.membershipRemoved, { projectId, teamId, userId }, { projectId });
      });
      return {};
    },

    async getTeamMember(req) {
      const { projectId, teamId, userId } = req;
      if (isClient(req.caller)) {
        const me = clientUser(req.caller, () => knownError("CANNOT_GET_OWN_USER_WITHOUT_USER"));
        if (userId !== me) {
          const s = await settings.get(projectId, Number(req.caller?.knownConfigVersion ?? 0));
          await requireTeamPermission(identity, pool, s, projectId, teamId, me, "$read_members");
        }
      }
      return { member: memberMessage(await requireMembership(identity, pool, projectId, teamId, userId)) };
    },

    async listTeamMembers(req) {
      const { projectId } = req;
      const teamId = req.teamId || undefined;
      const userId = req.userId || undefined;
      if (isClient(req.caller)) {
        const me = clientUser(req.caller, () => knownError("CANNOT_GET_OWN_USER_WITHOUT_USER"));
        if (!teamId) throw statusError(400, "team_id is required for access type client");
        await requireMembership(identity, pool, projectId, teamId, me);
        if (userId !== me) {
          const s = await settings.get(projectId, Number(req.caller?.knownConfigVersion ?? 0));
          await requireTeamPermission(identity, pool, s, projectId, teamId, me, "$read_members");
        }
      } else {
        if (teamId && !(isUuid(teamId) && (await teamStore.get(pool, projectId, teamId)))) throw knownError("TEAM_NOT_FOUND", { team_id: teamId });
        if (userId) {
          if (!isUuid(userId)) throw knownError("USER_NOT_FOUND");
          await requireUser(identity, projectId, userId);
        }
      }
      if ((teamId && !isUuid(teamId)) || (userId && !isUuid(userId))) return { members: [] };
      return { members: (await memberStore.list(pool, projectId, { teamId, userId, limit: req.limit || undefined })).map(memberMessage) };
    },

    async updateTeamMember(req) {
      const { projectId, teamId, userId } = req;
      if (isClient(req.caller)) {
        const me = clientUser(req.caller, () => knownError("CANNOT_GET_OWN_USER_WITHOUT_USER"));
        if (userId !== me) throw statusError(403, "Cannot update another user's profile");
      }
      const member = await withTransaction(pool, async (tx) => {
        const before = await requireMembership(identity, tx, projectId, teamId, userId, true);
        return memberStore.updateProfile(tx, {
          ...before,
          display_name: req.clearDisplayName ? null : (req.displayName ?? before.display_name),
          profile_image_url: req.clearProfileImageUrl ? null : (req.profileImageUrl ?? before.profile_image_url),
        });
      });
      return { member: memberMessage(member) };
    },
  };
}
