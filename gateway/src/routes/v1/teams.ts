import { knownError, statusError } from "@vestibule/shared/errors";
import { Type } from "typebox";
import { DisplayName, formatValidationMessage, ImageUrl, Metadata, Nullable, Obj, OneOf, Optional, PAGE_LIMIT_MAX, PageLimit, QueryBoolean, UserIdOrMe, Uuid } from "../../validation/index.ts";
import { teamView } from "../../views/team.ts";
import { resolveUserId } from "../helpers.ts";
import { defineRoute } from "../route.ts";
import { callerOf } from "../teams-caller.ts";

const ANY = ["client", "server", "admin"] as const;

const clientWritable = {
  display_name: DisplayName(),
  profile_image_url: Optional(Nullable(ImageUrl())),
  client_metadata: Optional(Metadata()),
};
const serverOnly = {
  client_read_only_metadata: Optional(Metadata()),
  server_metadata: Optional(Metadata()),
};
const CLIENT_CREATE_FIELDS = new Set(["display_name", "creator_user_id", "profile_image_url", "client_metadata"]);
const CLIENT_UPDATE_FIELDS = new Set(["display_name", "profile_image_url", "client_metadata"]);

/** Client bodies must not carry the server-only fields: SCHEMA_ERROR "body contains unknown properties: …". */
function rejectServerFields(body: Record<string, unknown>, allowed: ReadonlySet<string>, method: string, url: string): void {
  const extra = Object.keys(body).filter((k) => !allowed.has(k));
  if (extra.length > 0) {
    throw knownError("SCHEMA_ERROR", { message: formatValidationMessage(method, url.split("?")[0]!, [`body contains unknown properties: ${extra.join(", ")}`]) });
  }
}

/** A client's team image must be an uploaded image (base64 data URL), as for user profile images. */
function checkClientImage(url: string | null | undefined): void {
  if (url && !/^data:image\/[a-z0-9.+-]+;base64,/i.test(url)) throw statusError(400, "Invalid profile image URL");
}

function metadataJson(v: unknown): string | undefined {
  return v === undefined ? undefined : JSON.stringify(v);
}

const TeamParams = Obj({ team_id: Uuid() });

export const listTeamsRoute = defineRoute({
  method: "GET",
  path: "/teams",
  summary: "List teams (a client lists its own: user_id=me); oldest first; a server may page a project's teams",
  tags: ["Teams"],
  access: ANY,
  schemas: {
    query: Obj({
      user_id: Optional(UserIdOrMe()),
      // The current SDK's paging (latest-sdk.md B): creation order, cursor = a team id.
      limit: Optional(PageLimit()),
      cursor: Optional(Uuid()),
      query: Optional(Type.String({ maxLength: 1000 })),
      order_by: Optional(OneOf(["created_at"])),
      desc: Optional(QueryBoolean()),
    }),
  },
  async handler({ auth, query, clients }) {
    const userId = query.user_id === undefined ? "" : resolveUserId(auth, query.user_id);
    const paged = query.limit !== undefined || query.cursor !== undefined || query.query !== undefined || query.desc === true || query.order_by !== undefined;
    const res = await clients.teams.listTeams({
      projectId: auth.projectId,
      caller: callerOf(auth),
      userId,
      limit: query.limit ?? PAGE_LIMIT_MAX,
      cursor: query.cursor ?? "",
      query: query.query ?? "",
      desc: query.desc === true,
    });
    const items = res.teams.map((t) => teamView(t, auth.type));
    // Unpaged lists stay unpaged up to PAGE_LIMIT_MAX teams (issue 18); beyond, the first page and its cursor.
    if (!paged && !res.nextCursor) return { json: { items, is_paginated: false } };
    return { json: { items, is_paginated: true, pagination: { next_cursor: res.nextCursor || null } } };
  },
});

export const createTeamRoute = defineRoute({
  method: "POST",
  path: "/teams",
  summary: "Create a team; its creator joins it with the team creator's default permissions and has it selected",
  tags: ["Teams"],
  access: ANY,
  schemas: {
    query: Obj({ add_current_user: Optional(OneOf(["true", "false"])) }),
    body: Obj({ ...clientWritable, creator_user_id: Optional(UserIdOrMe()), ...serverOnly }),
  },
  async handler({ auth, body, query, clients, users, req }) {
    if (auth.type === "client") {
      rejectServerFields(body, CLIENT_CREATE_FIELDS, "POST", req.url);
      checkClientImage(body.profile_image_url);
    }
    if (body.creator_user_id !== undefined && query.add_current_user !== undefined) {
      throw statusError(400, "Cannot use both creator_user_id and add_current_user. add_current_user is deprecated, please only use creator_user_id in the body.");
    }
    let creator = "";
    if (body.creator_user_id !== undefined) {
      creator = body.creator_user_id === "me" && auth.type === "client" && !auth.user ? "" : resolveUserId(auth, body.creator_user_id);
    } else if (query.add_current_user === "true") {
      if (!auth.user) throw statusError(401, "You must be logged in to create a team with the current user as a member.");
      creator = auth.user.id;
    }
    const { team } = await clients.teams.createTeam({
      projectId: auth.projectId,
      caller: callerOf(auth),
      displayName: body.display_name,
      profileImageUrl: body.profile_image_url ?? undefined,
      clientMetadataJson: metadataJson(body.client_metadata) ?? "",
      clientReadOnlyMetadataJson: metadataJson(body.client_read_only_metadata) ?? "",
      serverMetadataJson: metadataJson(body.server_metadata) ?? "",
      creatorUserId: creator,
    });
    // The creator now has it selected: their cached user record is stale.
    const member = creator || (auth.type === "client" ? auth.user?.id : undefined);
    if (member) users.invalidate(auth.projectId, member);
    return { status: 201, json: teamView(team!, auth.type) };
  },
});

export const getTeamRoute = defineRoute({
  method: "GET",
  path: "/teams/:team_id",
  summary: "Read a team (a client must be a member)",
  tags: ["Teams"],
  access: ANY,
  schemas: { params: TeamParams },
  async handler({ auth, params, clients }) {
    const { team } = await clients.teams.getTeam({ projectId: auth.projectId, caller: callerOf(auth), teamId: params.team_id });
    return { json: teamView(team!, auth.type) };
  },
});

export const updateTeamRoute = defineRoute({
  method: "PATCH",
  path: "/teams/:team_id",
  summary: "Update a team (a client needs $update_team)",
  tags: ["Teams"],
  access: ANY,
  schemas: {
    params: TeamParams,
    body: Obj({ display_name: Optional(DisplayName()), profile_image_url: Optional(Nullable(ImageUrl())), client_metadata: Optional(Metadata()), ...serverOnly }),
  },
  async handler({ auth, params, body, clients, teamCache, req }) {
    if (auth.type === "client") {
      rejectServerFields(body, CLIENT_UPDATE_FIELDS, "PATCH", req.url);
      checkClientImage(body.profile_image_url);
    }
    const { team } = await clients.teams.updateTeam({
      projectId: auth.projectId,
      caller: callerOf(auth),
      teamId: params.team_id,
      displayName: body.display_name,
      profileImageUrl: body.profile_image_url ?? undefined,
      clearProfileImageUrl: body.profile_image_url === null,
      clientMetadataJson: metadataJson(body.client_metadata),
      clientReadOnlyMetadataJson: metadataJson(body.client_read_only_metadata),
      serverMetadataJson: metadataJson(body.server_metadata),
    });
    teamCache.put(team!);
    return { json: teamView(team!, auth.type) };
  },
});

export const deleteTeamRoute = defineRoute({
  method: "DELETE",
  path: "/teams/:team_id",
  summary: "Delete a team with its memberships, grants and invitations (a client needs $delete_team)",
  tags: ["Teams"],
  access: ANY,
  schemas: { params: TeamParams },
  async handler({ auth, params, clients, teamCache }) {
    await clients.teams.deleteTeam({ projectId: auth.projectId, caller: callerOf(auth), teamId: params.team_id });
    teamCache.invalidate(auth.projectId, params.team_id);
    return { json: { success: true } };
  },
});
