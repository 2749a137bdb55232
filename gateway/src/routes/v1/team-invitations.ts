import { Type } from "typebox";
import { knownError, statusError } from "@vestibule/shared/errors";
import { CallbackUrl, Email, Obj, Optional, UserIdOrMe, Uuid } from "../../validation/index.ts";
import { invitationView } from "../../views/team.ts";
import { restrictionOfUser, userViewProject } from "../../views/user.ts";
import { resolveUserId } from "../helpers.ts";
import { defineRoute } from "../route.ts";
import { callerOf } from "../teams-caller.ts";

const ANY = ["client", "server", "admin"] as const;
const Code45 = Type.String({ minLength: 45, maxLength: 45 });

export const sendTeamInvitationRoute = defineRoute({
  method: "POST",
  path: "/team-invitations/send-code",
  summary: "Invite someone to a team by e-mail (a client needs $invite_members); the link is callback_url?code=…",
  tags: ["Teams"],
  access: ANY,
  schemas: { body: Obj({ team_id: Uuid(), email: Email(), callback_url: CallbackUrl() }) },
  async handler({ auth, body, clients }) {
    const { invitation } = await clients.teamInvitations.createTeamInvitation({
      projectId: auth.projectId,
      caller: callerOf(auth),
      teamId: body.team_id,
      email: body.email,
      callbackUrl: body.callback_url,
    });
    return { json: { success: true, id: invitation!.id } };
  },
});

export const listTeamInvitationsRoute = defineRoute({
  method: "GET",
  path: "/team-invitations",
  summary:
    "Pending invitations of a team (team_id; a client needs $read_members and $invite_members), or those addressed to a user's verified e-mails (user_id; a client only `me`)",
  tags: ["Teams"],
  access: ANY,
  schemas: { query: Obj({ team_id: Optional(Uuid()), user_id: Optional(UserIdOrMe()) }) },
  async handler({ auth, query, clients, req }) {
    if (query.team_id === undefined && query.user_id === undefined) {
      // As before user_id existed: the team is required.
      throw knownError("SCHEMA_ERROR", { message: `Request validation failed on GET ${req.url.split("?")[0]}:\n  - query.team_id must be defined` });
    }
    if (query.team_id !== undefined && query.user_id !== undefined) throw statusError(400, "Give either team_id or user_id, not both.");
    const { invitations } = await clients.teamInvitations.listTeamInvitations({
      projectId: auth.projectId,
      caller: callerOf(auth),
      teamId: query.team_id ?? "",
      userId: query.user_id === undefined ? "" : resolveUserId(auth, query.user_id),
    });
    return { json: { items: invitations.map(invitationView), is_paginated: false } };
  },
});

export const revokeTeamInvitationRoute = defineRoute({
  method: "DELETE",
  path: "/team-invitations/:id",
  summary: "Revoke a pending invitation (a client needs $remove_members)",
  tags: ["Teams"],
  access: ANY,
  schemas: { params: Obj({ id: Uuid() }), query: Obj({ team_id: Uuid() }) },
  async handler({ auth, params, query, clients }) {
    await clients.teamInvitations.deleteTeamInvitation({ projectId: auth.projectId, caller: callerOf(auth), teamId: query.team_id, invitationId: params.id });
    return { json: { success: true } };
  },
});

export const checkTeamInvitationCodeRoute = defineRoute({
  method: "POST",
  path: "/team-invitations/accept/check-code",
  summary: "Check an invitation code without using it",
  tags: ["Teams"],
  access: ANY,
  schemas: { body: Obj({ code: Code45 }) },
  async handler({ auth, body, clients, clientIp }) {
    await clients.teamInvitations.checkTeamInvitationCode({ projectId: auth.projectId, code: body.code, clientIp });
    return { json: { is_code_valid: true } };
  },
});

export const teamInvitationDetailsRoute = defineRoute({
  method: "POST",
  path: "/team-invitations/accept/details",
  summary: "The team an invitation code is for, without using it",
  tags: ["Teams"],
  access: ANY,
  user: "known-error",
  schemas: { body: Obj({ code: Code45 }) },
  async handler({ auth, body, clients, clientIp }) {
    const res = await clients.teamInvitations.getTeamInvitationDetails({ projectId: auth.projectId, caller: callerOf(auth), code: body.code, clientIp });
    return { json: { team_id: res.teamId, team_display_name: res.teamDisplayName } };
  },
});

export const acceptTeamInvitationRoute = defineRoute({
  method: "POST",
  path: "/team-invitations/accept",
  summary: "Join the team of an invitation code (the code is used)",
  tags: ["Teams"],
  access: ANY,
  user: "known-error",
  schemas: { body: Obj({ code: Code45 }) },
  async handler({ auth, body, clients, clientIp }) {
    await clients.teamInvitations.acceptTeamInvitation({ projectId: auth.projectId, caller: callerOf(auth), code: body.code, clientIp });
    return { json: {} };
  },
});

export const acceptTeamInvitationByIdRoute = defineRoute({
  method: "POST",
  path: "/team-invitations/:id/accept",
  summary: "Accept a pending invitation addressed to one of the user's verified e-mails (the current SDK; a client only `me`)",
  tags: ["Teams"],
  access: ANY,
  schemas: { params: Obj({ id: Uuid() }), query: Obj({ user_id: UserIdOrMe() }) },
  async handler({ auth, params, query, clients }) {
    if (auth.type === "client") {
      if (!auth.user) throw knownError("CANNOT_GET_OWN_USER_WITHOUT_USER");
      // Restricted users (anonymous ones included) first finish onboarding, as the reference requires.
      const restriction = restrictionOfUser(auth.user.record, userViewProject(auth.project));
      if (restriction.reason) throw knownError("TEAM_INVITATION_RESTRICTED_USER_NOT_ALLOWED", { restricted_reason: restriction.reason });
    }
    await clients.teamInvitations.acceptTeamInvitationById({
      projectId: auth.projectId,
      caller: callerOf(auth),
      invitationId: params.id,
      userId: resolveUserId(auth, query.user_id),
    });
    return { json: {} };
  },
});
