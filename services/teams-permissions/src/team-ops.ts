/**
 * The state changes several RPCs and consumers share (creating a team, adding a member), each in the caller's
 * transaction with its events in the outbox.
 */
import { create } from "@bufbuild/protobuf";
import { TeamMemberSchema, TeamSchema, TeamInvitationSchema, type Team, type TeamMember, type TeamInvitation } from "@vestibule/proto/teams_permissions/v1/team";
import { PermissionScope } from "@vestibule/proto/teams_permissions/v1/permission";
import type { PoolClient } from "@vestibule/shared/db";
import { knownError } from "@vestibule/shared/errors";
import type { ProjectSettings } from "./domain/rbac.ts";
import { TeamsEvents } from "./events.ts";
import type { TeamsRuntime } from "./runtime.ts";
import { deletedUserStore } from "./store/deleted-user-store.ts";
import { grantStore } from "./store/grant-store.ts";
import type { InvitationRow } from "./store/invitation-store.ts";
import { memberStore, type MemberRow } from "./store/member-store.ts";
import { teamStore, type TeamFields, type TeamRow } from "./store/team-store.ts";

export function teamMessage(row: TeamRow): Team {
  return create(TeamSchema, {
    id: row.id,
    projectId: row.project_id,
    displayName: row.display_name,
    profileImageUrl: row.profile_image_url ?? undefined,
    createdAtMillis: BigInt(row.created_at.getTime()),
    clientMetadataJson: row.client_metadata ?? "",
    clientReadOnlyMetadataJson: row.client_read_only_metadata ?? "",
    serverMetadataJson: row.server_metadata ?? "",
    version: BigInt(row.version),
  });
}

export function memberMessage(row: MemberRow): TeamMember {
  return create(TeamMemberSchema, {
    projectId: row.project_id,
    teamId: row.team_id,
    userId: row.user_id,
    displayName: row.display_name ?? undefined,
    profileImageUrl: row.profile_image_url ?? undefined,
    joinedAtMillis: BigInt(row.created_at.getTime()),
  });
}

export function invitationMessage(row: InvitationRow & { team_display_name?: string }): TeamInvitation {
  return create(TeamInvitationSchema, {
    teamDisplayName: row.team_display_name ?? "",
    id: row.id,
    projectId: row.project_id,
    teamId: row.team_id,
    recipientEmail: row.recipient_email,
    expiresAtMillis: BigInt(row.expires_at.getTime()),
    createdAtMillis: BigInt(row.created_at.getTime()),
  });
}

/**
 * Adds a member with the default permissions of their kind (team_creator_default_permissions or
 * team_member_default_permissions; ids that are not team definitions of the project are skipped) and the events.
 * Undefined when the membership already exists. USER_NOT_FOUND for a user identity deleted.
 */
export async function addMember(
  rt: TeamsRuntime,
  tx: PoolClient,
  settings: ProjectSettings,
  m: { projectId: string; teamId: string; userId: string; kind: "creator" | "member" },
): Promise<{ member: MemberRow; granted: string[] } | undefined> {
  if (await deletedUserStore.isDeleted(tx, m.projectId, m.userId)) throw knownError("USER_NOT_FOUND");
  const member = await memberStore.insert(tx, m);
  if (!member) return undefined;
  const { outbox } = rt.ctx;
  await outbox.enqueue(tx, TeamsEvents.membershipAdded, { projectId: m.projectId, teamId: m.teamId, userId: m.userId }, { projectId: m.projectId });
  const defaults = m.kind === "creator" ? settings.defaults.teamCreator : settings.defaults.teamMember;
  const granted: string[] = [];
  for (const permissionId of defaults) {
    if (!settings.team.has(permissionId)) {
      rt.ctx.log.warn({ project_id: m.projectId, permission_id: permissionId }, "default team permission is not a team permission definition; skipped");
      continue;
    }
    if (await grantStore.grantTeam(tx, { ...m, permissionId })) {
      granted.push(permissionId);
      await outbox.enqueue(
        tx,
        TeamsEvents.permissionGranted,
        { projectId: m.projectId, scope: PermissionScope.TEAM, teamId: m.teamId, userId: m.userId, permissionId },
        { projectId: m.projectId },
      );
    }
  }
  return { member, granted };
}

/**
 * Creates a team; with a creator, adds them with the creator's default permissions and selects the team for them
 * (identity owns `selected_team_id`; the call is made inside the transaction, so a failure rolls the team back and the
 * caller can retry cleanly). `select: "if-none"` (the personal team, created asynchronously after sign-up) leaves a
 * selection the user already made alone (identity decides with the user locked: UpdateUser.only_if_no_selected_team).
 * TEAM_ALREADY_EXISTS when the id is taken.
 */
export async function createTeam(
  rt: TeamsRuntime,
  tx: PoolClient,
  settings: ProjectSettings,
  t: TeamFields & { id: string; projectId: string; creatorUserId?: string; select?: "always" | "if-none" },
): Promise<TeamRow> {
  const row = await teamStore.insert(tx, { ...t, project_id: t.projectId });
  if (!row) throw knownError("TEAM_ALREADY_EXISTS", { team_id: t.id });
  await rt.ctx.outbox.enqueue(tx, TeamsEvents.teamCreated, { team: teamMessage(row), creatorUserId: t.creatorUserId ?? "" }, { projectId: t.projectId });
  if (t.creatorUserId) {
    await addMember(rt, tx, settings, { projectId: t.projectId, teamId: row.id, userId: t.creatorUserId, kind: "creator" });
    // "if-none": identity checks for a selection with the user locked (one call, no read before it).
    await rt.identity.users.updateUser({ projectId: t.projectId, userId: t.creatorUserId, selectedTeamId: { value: row.id }, onlyIfNoSelectedTeam: t.select === "if-none" });
  }
  return row;
}
