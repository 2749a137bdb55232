/**
 * The contract's access rules for client callers (endpoints.md §4): a signed-in user, acting on themselves, a member
 * of the team, holding the `$` permission the operation needs (checked recursively through contained permissions).
 * Server and admin callers, and other services, pass. Error order follows the reference: membership
 * (USER_NOT_FOUND, TEAM_MEMBERSHIP_NOT_FOUND) before the permission (TEAM_PERMISSION_REQUIRED).
 */
import type { Caller } from "@vestibule/proto/teams_permissions/v1/team";
import { AccessType } from "@vestibule/proto/teams_permissions/v1/team";
import type { Queryable } from "@vestibule/shared/db";
import { knownError } from "@vestibule/shared/errors";
import { isUuid } from "@vestibule/shared/ids";
import type { ProjectSettings } from "./domain/rbac.ts";
import { requireUser, type IdentityClients } from "./peers.ts";
import { memberStore, type MemberRow } from "./store/member-store.ts";

export function isClient(caller: Caller | undefined): boolean {
  return caller?.accessType === AccessType.CLIENT;
}

/** The signed-in user of a client caller, or the given error. */
export function clientUser(caller: Caller | undefined, missing: () => Error): string {
  if (!caller?.userId) throw missing();
  return caller.userId;
}

/**
 * The membership, or USER_NOT_FOUND (unknown user: asked of identity only on this error path) /
 * TEAM_MEMBERSHIP_NOT_FOUND.
 */
export async function requireMembership(
  identity: IdentityClients,
  db: Queryable,
  projectId: string,
  teamId: string,
  userId: string,
  forUpdate = false,
): Promise<MemberRow> {
  if (!isUuid(userId)) throw knownError("USER_NOT_FOUND");
  const member = isUuid(teamId) ? await memberStore.get(db, projectId, teamId, userId, forUpdate) : undefined;
  if (member) return member;
  await requireUser(identity, projectId, userId);
  throw knownError("TEAM_MEMBERSHIP_NOT_FOUND", { team_id: teamId, user_id: userId });
}

/** Whether `userId` holds `permissionId` in the team (recursively); null when not a member. One indexed read. */
export async function holdsTeamPermission(
  db: Queryable,
  settings: ProjectSettings,
  projectId: string,
  teamId: string,
  userId: string,
  permissionId: string,
): Promise<boolean | null> {
  if (!isUuid(teamId) || !isUuid(userId)) return null;
  const direct = await memberStore.directTeamPermissions(db, projectId, teamId, userId);
  if (direct === null) return null;
  return settings.team.implies(direct, permissionId);
}

/** Membership, then the permission: TEAM_MEMBERSHIP_NOT_FOUND / TEAM_PERMISSION_REQUIRED. */
export async function requireTeamPermission(
  identity: IdentityClients,
  db: Queryable,
  settings: ProjectSettings,
  projectId: string,
  teamId: string,
  userId: string,
  permissionId: string,
): Promise<void> {
  const holds = await holdsTeamPermission(db, settings, projectId, teamId, userId, permissionId);
  if (holds === null) await requireMembership(identity, db, projectId, teamId, userId);
  if (!holds) throw knownError("TEAM_PERMISSION_REQUIRED", { team_id: teamId, user_id: userId, permission_id: permissionId });
}
