import type { User } from "@vestibule/proto/identity/v1/user";
import type { TeamMember } from "@vestibule/proto/teams_permissions/v1/team";
import { DisplayName, ImageUrl, Nullable, Obj, Optional, PAGE_LIMIT_MAX, PageLimit, UserIdOrMe, Uuid } from "../../validation/index.ts";
import type { ServiceClients } from "../../clients.ts";
import type { TeamCache } from "../../auth/team-cache.ts";
import { memberProfileView } from "../../views/team.ts";
import { serverUserView, userViewProject, type UserViewProject } from "../../views/user.ts";
import { resolveUserId } from "../helpers.ts";
import { defineRoute } from "../route.ts";
import { selectedTeamsOf } from "../selected-teams.ts";
import { callerOf } from "../teams-caller.ts";

const ProfileParams = Obj({ team_id: Uuid(), user_id: UserIdOrMe() });

/**
 * Member profiles in the caller's shape: a client sees `{team_id, user_id, display_name, profile_image_url}` (the
 * profile's own name and image, else the user's); server and admin callers also get the member's `user` (server shape).
 * The users come from identity in one call.
 */
async function profileViews(
  clients: ServiceClients,
  teams: TeamCache,
  projectId: string,
  type: "client" | "server" | "admin",
  members: readonly TeamMember[],
  project: UserViewProject,
): Promise<Record<string, unknown>[]> {
  if (members.length === 0) return [];
  const { users } = await clients.users.listUsers({
    projectId,
    limit: 0,
    includeAnonymous: true,
    userIds: [...new Set(members.map((m) => m.userId))],
    restrictToUserIds: true,
  });
  const byId = new Map<string, User>(users.map((u) => [u.id, u]));
  const selected = type === "client" ? undefined : await selectedTeamsOf(teams, projectId, users);
  return members.map((m) => {
    const user = byId.get(m.userId);
    const view = memberProfileView(m, user);
    return type === "client" || !user ? view : { ...view, user: serverUserView(user, selected?.get(user.id), project) };
  });
}

export const listTeamMemberProfilesRoute = defineRoute({
  method: "GET",
  path: "/team-member-profiles",
  summary: "List member profiles of a team (a client needs membership, and $read_members for others' profiles)",
  tags: ["Teams"],
  access: ["client", "server", "admin"],
  // `limit` (Vestibule addition, issue 18): at most this many profiles, oldest members first; default and cap 1000.
  schemas: { query: Obj({ team_id: Optional(Uuid()), user_id: Optional(UserIdOrMe()), limit: Optional(PageLimit()) }) },
  async handler({ auth, query, clients, teamCache }) {
    const userId = query.user_id === undefined ? "" : resolveUserId(auth, query.user_id);
    const { members } = await clients.teamMembers.listTeamMembers({
      projectId: auth.projectId,
      caller: callerOf(auth),
      teamId: query.team_id ?? "",
      userId,
      limit: query.limit ?? PAGE_LIMIT_MAX,
    });
    return { json: { items: await profileViews(clients, teamCache, auth.projectId, auth.type, members, userViewProject(auth.project)), is_paginated: false } };
  },
});

export const getTeamMemberProfileRoute = defineRoute({
  method: "GET",
  path: "/team-member-profiles/:team_id/:user_id",
  summary: "Read a member profile",
  tags: ["Teams"],
  access: ["client", "server", "admin"],
  schemas: { params: ProfileParams },
  async handler({ auth, params, clients, teamCache }) {
    const userId = resolveUserId(auth, params.user_id);
    const { member } = await clients.teamMembers.getTeamMember({ projectId: auth.projectId, caller: callerOf(auth), teamId: params.team_id, userId });
    const [view] = await profileViews(clients, teamCache, auth.projectId, auth.type, [member!], userViewProject(auth.project));
    return { json: view };
  },
});

export const updateTeamMemberProfileRoute = defineRoute({
  method: "PATCH",
  path: "/team-member-profiles/:team_id/:user_id",
  summary: "Update a member profile (a client only its own)",
  tags: ["Teams"],
  access: ["client", "server", "admin"],
  schemas: { params: ProfileParams, body: Obj({ display_name: Optional(DisplayName()), profile_image_url: Optional(Nullable(ImageUrl())) }) },
  async handler({ auth, params, body, clients, teamCache }) {
    const userId = resolveUserId(auth, params.user_id);
    const { member } = await clients.teamMembers.updateTeamMember({
      projectId: auth.projectId,
      caller: callerOf(auth),
      teamId: params.team_id,
      userId,
      displayName: body.display_name,
      profileImageUrl: body.profile_image_url ?? undefined,
      clearProfileImageUrl: body.profile_image_url === null,
    });
    const [view] = await profileViews(clients, teamCache, auth.projectId, auth.type, [member!], userViewProject(auth.project));
    return { json: view };
  },
});
