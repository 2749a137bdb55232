import type { ServiceImpl } from "@connectrpc/connect";
import { TeamService } from "@vestibule/proto/teams_permissions/v1/team_service";
import { withTransaction } from "@vestibule/shared/db";
import { knownError, statusError } from "@vestibule/shared/errors";
import { isUuid, newId } from "@vestibule/shared/ids";
import { clientUser, isClient, requireMembership, requireTeamPermission } from "./access.ts";
import { MetadataError, parseMetadataJson } from "./domain/teams.ts";
import { TeamsEvents } from "./events.ts";
import { requireUser } from "./peers.ts";
import type { TeamsRuntime } from "./runtime.ts";
import { createTeam, teamMessage } from "./team-ops.ts";
import { teamStore, type TeamRow } from "./store/team-store.ts";

function metadata(text: string | undefined, field: string): string | null {
  try {
    return parseMetadataJson(text, field);
  } catch (err) {
    if (err instanceof MetadataError) throw statusError(400, err.message);
    throw err;
  }
}

function teamNotFound(teamId: string): never {
  throw knownError("TEAM_NOT_FOUND", { team_id: teamId });
}

/**
 * Teams (endpoints.md §4). Client callers are held to the contract's rules here, in the same transaction as the
 * change: creation only when the project allows it and only as themselves, reading only teams they belong to, updating
 * with $update_team, deleting with $delete_team.
 */
export function createTeamService(rt: TeamsRuntime): ServiceImpl<typeof TeamService> {
  const { ctx, identity, settings } = rt;
  const { pool, outbox } = ctx;

  async function requireTeam(projectId: string, teamId: string): Promise<TeamRow> {
    const row = isUuid(teamId) ? await teamStore.get(pool, projectId, teamId) : undefined;
    return row ?? teamNotFound(teamId);
  }

  return {
    async createTeam(req) {
      const s = await settings.get(req.projectId, Number(req.caller?.knownConfigVersion ?? 0));
      let creator = req.creatorUserId || undefined;
      if (isClient(req.caller)) {
        const me = clientUser(req.caller, () => knownError("USER_AUTHENTICATION_REQUIRED"));
        if (!s.allowClientTeamCreation) throw statusError(403, "Client team creation is disabled for this project");
        if (creator && creator !== me) {
          throw statusError(403, "You cannot create a team as a user that is not yourself. Make sure you set the creator_user_id to 'me'.");
        }
        creator = me;
      }
      if (req.teamId && !isUuid(req.teamId)) throw statusError(400, "team_id must be a UUID.");
      if (creator) {
        if (!isUuid(creator)) throw knownError("USER_NOT_FOUND");
        await requireUser(identity, req.projectId, creator);
      }
      const fields = {
        display_name: req.displayName,
        profile_image_url: req.profileImageUrl || null,
        client_metadata: metadata(req.clientMetadataJson, "client_metadata"),
        client_read_only_metadata: metadata(req.clientReadOnlyMetadataJson, "client_read_only_metadata"),
        server_metadata: metadata(req.serverMetadataJson, "server_metadata"),
      };
      const row = await withTransaction(pool, (tx) =>
        createTeam(rt, tx, s, { ...fields, id: req.teamId ? req.teamId.toLowerCase() : newId(), projectId: req.projectId, creatorUserId: creator }),
      );
      return { team: teamMessage(row) };
    },

    async getTeam(req) {
      if (isClient(req.caller)) {
        const me = clientUser(req.caller, () => knownError("USER_AUTHENTICATION_REQUIRED"));
        await requireMembership(identity, pool, req.projectId, req.teamId, me);
      }
      return { team: teamMessage(await requireTeam(req.projectId, req.teamId)) };
    },

    async listTeams(req) {
      const userId = req.userId || undefined;
      if (isClient(req.caller)) {
        const me = clientUser(req.caller, () => knownError("CANNOT_GET_OWN_USER_WITHOUT_USER"));
        if (userId !== me) {
          throw statusError(403, 'Client can only list teams for their own user. user_id must be either "me" or the ID of the current user');
        }
      }
      if (userId && !isUuid(userId)) return { teams: [] };
      const paged = req.limit > 0 || req.cursor !== "" || req.query !== "" || req.desc;
      if (!paged) return { teams: (await teamStore.list(pool, req.projectId, userId)).map(teamMessage) };
      // The current SDK's paging (creation order).
      if (req.limit < 0) throw statusError(400, "limit must not be negative.");
      if (req.cursor && !isUuid(req.cursor)) throw statusError(400, "cursor must be a team id.");
      const rows = await teamStore.page(pool, { projectId: req.projectId, userId, limit: req.limit, cursor: req.cursor || undefined, query: req.query || undefined, desc: req.desc });
      const more = req.limit > 0 && rows.length > req.limit;
      return { teams: (more ? rows.slice(0, req.limit) : rows).map(teamMessage), nextCursor: more ? rows[req.limit]!.id : "" };
    },

    async batchGetTeams(req) {
      const ids = [...new Set(req.teamIds.filter(isUuid).map((id) => id.toLowerCase()))];
      return { teams: (await teamStore.batchGet(pool, req.projectId, ids)).map(teamMessage) };
    },

    async updateTeam(req) {
      const team = await withTransaction(pool, async (tx) => {
        if (isClient(req.caller)) {
          const me = clientUser(req.caller, () => knownError("USER_AUTHENTICATION_REQUIRED"));
          const s = await settings.get(req.projectId, Number(req.caller?.knownConfigVersion ?? 0));
          await requireTeamPermission(identity, tx, s, req.projectId, req.teamId, me, "$update_team");
        }
        const before = isUuid(req.teamId) ? await teamStore.get(tx, req.projectId, req.teamId, true) : undefined;
        if (!before) teamNotFound(req.teamId);
        const row = await teamStore.update(tx, req.projectId, req.teamId, {
          display_name: req.displayName ?? before.display_name,
          profile_image_url: req.clearProfileImageUrl ? null : (req.profileImageUrl ?? before.profile_image_url),
          client_metadata: req.clientMetadataJson !== undefined ? metadata(req.clientMetadataJson, "client_metadata") : before.client_metadata,
          client_read_only_metadata:
            req.clientReadOnlyMetadataJson !== undefined ? metadata(req.clientReadOnlyMetadataJson, "client_read_only_metadata") : before.client_read_only_metadata,
          server_metadata: req.serverMetadataJson !== undefined ? metadata(req.serverMetadataJson, "server_metadata") : before.server_metadata,
        });
        const message = teamMessage(row);
        await outbox.enqueue(tx, TeamsEvents.teamUpdated, { team: message }, { projectId: req.projectId });
        return message;
      });
      return { team };
    },

    async deleteTeam(req) {
      await withTransaction(pool, async (tx) => {
        if (isClient(req.caller)) {
          const me = clientUser(req.caller, () => knownError("USER_AUTHENTICATION_REQUIRED"));
          const s = await settings.get(req.projectId, Number(req.caller?.knownConfigVersion ?? 0));
          await requireTeamPermission(identity, tx, s, req.projectId, req.teamId, me, "$delete_team");
        }
        if (!isUuid(req.teamId) || !(await teamStore.delete(tx, req.projectId, req.teamId))) teamNotFound(req.teamId);
        await outbox.enqueue(tx, TeamsEvents.teamDeleted, { projectId: req.projectId, teamId: req.teamId }, { projectId: req.projectId });
      });
      return {};
    },
  };
}
