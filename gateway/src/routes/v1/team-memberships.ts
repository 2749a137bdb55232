import { Obj, Optional, UserIdOrMe, Uuid } from "../../validation/index.ts";
import { resolveUserId } from "../helpers.ts";
import { defineRoute } from "../route.ts";
import { callerOf } from "../teams-caller.ts";

const MembershipParams = Obj({ team_id: Uuid(), user_id: UserIdOrMe() });

export const addTeamMemberRoute = defineRoute({
  method: "POST",
  path: "/team-memberships/:team_id/:user_id",
  summary: "Add a user to a team with the team member's default permissions",
  tags: ["Teams"],
  access: ["server", "admin"],
  schemas: { params: MembershipParams, body: Optional(Obj({})) },
  async handler({ auth, params, clients }) {
    const userId = resolveUserId(auth, params.user_id);
    await clients.teamMembers.addTeamMember({ projectId: auth.projectId, caller: callerOf(auth), teamId: params.team_id, userId });
    return { status: 201, json: { team_id: params.team_id, user_id: userId } };
  },
});

export const removeTeamMemberRoute = defineRoute({
  method: "DELETE",
  path: "/team-memberships/:team_id/:user_id",
  summary: "Remove a user from a team (a client may always leave; removing others needs $remove_members)",
  tags: ["Teams"],
  access: ["client", "server", "admin"],
  schemas: { params: MembershipParams },
  async handler({ auth, params, clients, users }) {
    const userId = resolveUserId(auth, params.user_id);
    await clients.teamMembers.removeTeamMember({ projectId: auth.projectId, caller: callerOf(auth), teamId: params.team_id, userId });
    // identity unselects the team if it was selected (by event): the cached user may be stale until then.
    users.invalidate(auth.projectId, userId);
    return { json: { success: true } };
  },
});
