import { Type } from "typebox";
import { ApiKeyType, type ApiKey } from "@vestibule/proto/auth/v1/api_key_service";
import { knownError, statusError } from "@vestibule/shared/errors";
import type { RequestAuth } from "../../auth/request-auth.ts";
import type { TeamAccess } from "../../auth/team-access.ts";
import type { ServiceClients } from "../../clients.ts";
import { Nullable, Obj, OneOf, Optional, UserIdOrMe, Uuid } from "../../validation/index.ts";
import { apiKeyView } from "../../views/api-key.ts";
import { defineRoute, type RouteSpec } from "../route.ts";
import { resolveUserId } from "../helpers.ts";

/**
 * User and team API keys (contract endpoints.md §7). The keys themselves live in the auth service; here are the
 * access rules:
 *  - the project must allow the kind (`allow_user_api_keys` / `allow_team_api_keys`), else a plain 400;
 *  - a client manages only its own user's keys (a signed-in user is required: USER_AUTHENTICATION_REQUIRED; another
 *    user id: a plain 403), and a team's keys only with `$manage_api_keys` in that team (else API_KEY_NOT_FOUND,
 *    which does not tell whether the team or key exists);
 *  - server and admin callers manage any owner's keys; a team must exist (TEAM_NOT_FOUND);
 *  - checks (`/check`) are for server and admin callers only and are answered from the gateway's check cache.
 */

type Kind = "user" | "team";
const ANY = ["client", "server", "admin"] as const;
const SERVER = ["server", "admin"] as const;
const MANAGE_API_KEYS = "$manage_api_keys";

function typeOf(kind: Kind): ApiKeyType {
  return kind === "user" ? ApiKeyType.USER : ApiKeyType.TEAM;
}

function assertEnabled(auth: RequestAuth, kind: Kind): void {
  const flag = kind === "user" ? auth.project.adminConfig.allow_user_api_keys : auth.project.adminConfig.allow_team_api_keys;
  if (flag !== true) throw statusError(400, `${kind === "user" ? "User" : "Team"} API keys are not enabled for this project.`);
}

function signedInClient(auth: RequestAuth): string {
  if (!auth.user) throw knownError("USER_AUTHENTICATION_REQUIRED");
  return auth.user.id;
}

/** The user whose keys a request is about: a client may only name itself. */
function userOwner(auth: RequestAuth, idOrMe: string): string {
  if (auth.type !== "client") return resolveUserId(auth, idOrMe);
  const self = signedInClient(auth);
  const id = idOrMe === "me" ? self : idOrMe;
  // Stack's exact text (its e2e snapshot of creating a key for another user; issue 13).
  if (id !== self) throw statusError(403, "Client can only manage their own api keys");
  return id;
}

/** A team whose keys a request is about: clients need $manage_api_keys in it, others need it to exist. */
async function teamOwner(auth: RequestAuth, teams: TeamAccess, teamId: string): Promise<string> {
  if (auth.type === "client") {
    const self = signedInClient(auth);
    if (!(await teams.hasTeamPermission(auth.projectId, teamId, self, MANAGE_API_KEYS))) throw knownError("API_KEY_NOT_FOUND");
  } else if (!(await teams.teamExists(auth.projectId, teamId))) {
    throw knownError("TEAM_NOT_FOUND", { team_id: teamId });
  }
  return teamId;
}

/** Refuses a key id query that names both kinds of owner. */
function assertOneOwner(query: { user_id?: string; team_id?: string }): void {
  if (query.user_id !== undefined && query.team_id !== undefined) throw statusError(400, "Give either user_id or team_id, not both.");
}

/**
 * A key that the caller may see, by id: clients see their own user's keys and the keys of teams where they hold
 * `$manage_api_keys`; an owner named in the query must match. Everything else is API_KEY_NOT_FOUND.
 */
async function visibleKey(
  auth: RequestAuth,
  clients: ServiceClients,
  teams: TeamAccess,
  kind: Kind,
  apiKeyId: string,
  query: { user_id?: string; team_id?: string },
): Promise<{ ownerId: string | undefined }> {
  assertOneOwner(query);
  if (kind === "user") {
    if (auth.type === "client") return { ownerId: userOwner(auth, query.user_id ?? "me") };
    return { ownerId: query.user_id !== undefined ? resolveUserId(auth, query.user_id) : undefined };
  }
  if (auth.type !== "client") return { ownerId: query.team_id };
  const self = signedInClient(auth);
  const { apiKey } = await clients.apiKeys.getApiKey({ projectId: auth.projectId, type: ApiKeyType.TEAM, apiKeyId, ownerId: query.team_id ?? "" });
  if (!(await teams.hasTeamPermission(auth.projectId, apiKey!.ownerId, self, MANAGE_API_KEYS))) throw knownError("API_KEY_NOT_FOUND");
  return { ownerId: apiKey!.ownerId };
}

const OwnerQuery = Obj({ user_id: Optional(UserIdOrMe()), team_id: Optional(Uuid()) });
const KeyIdParams = Obj({ api_key_id: Uuid() });
const Description = Type.String({ maxLength: 1024 });
const Expiry = Nullable(Type.Integer({ minimum: 0 }));

function routesFor(kind: Kind): RouteSpec<any, any>[] {
  const base = `/${kind}-api-keys`;
  const tags = [kind === "user" ? "User API keys" : "Team API keys"];
  const ownerField = kind === "user" ? "user_id" : "team_id";

  const create = defineRoute({
    method: "POST",
    path: base,
    summary: `Create a ${kind} API key (the full key is in this answer only)`,
    tags,
    access: ANY,
    schemas: {
      body: Obj({
        ...(kind === "user" ? { user_id: UserIdOrMe() } : { team_id: Uuid() }),
        description: Description,
        expires_at_millis: Expiry,
        is_public: Optional(Type.Boolean()),
      }),
    },
    async handler({ auth, body, clients, teams }) {
      assertEnabled(auth, kind);
      const b = body as { user_id?: string; team_id?: string; description: string; expires_at_millis: number | null; is_public?: boolean };
      const ownerId = kind === "user" ? userOwner(auth, b.user_id!) : await teamOwner(auth, teams, b.team_id!);
      const { apiKey } = await clients.apiKeys.createApiKey({
        projectId: auth.projectId,
        type: typeOf(kind),
        ownerId,
        description: b.description,
        expiresAtMillis: b.expires_at_millis === null ? undefined : BigInt(b.expires_at_millis),
        isPublic: b.is_public ?? false,
      });
      return { json: apiKeyView(apiKey!, true) };
    },
  });

  const list = defineRoute({
    method: "GET",
    path: base,
    summary: `List the ${kind} API keys of a ${kind}, newest first (last four characters only)`,
    tags,
    access: ANY,
    schemas: { query: OwnerQuery },
    async handler({ auth, query, clients, teams }) {
      assertEnabled(auth, kind);
      assertOneOwner(query);
      const named = kind === "user" ? query.user_id : query.team_id;
      if (named === undefined) throw knownError("SCHEMA_ERROR", { message: `${ownerField} is required for ${kind} API keys` });
      const ownerId = kind === "user" ? userOwner(auth, named) : await teamOwner(auth, teams, named);
      const { apiKeys } = await clients.apiKeys.listApiKeys({ projectId: auth.projectId, type: typeOf(kind), ownerId });
      return { json: { items: apiKeys.map((k: ApiKey) => apiKeyView(k)), is_paginated: false } };
    },
  });

  const get = defineRoute({
    method: "GET",
    path: `${base}/:api_key_id`,
    summary: `Read a ${kind} API key`,
    tags,
    access: ANY,
    schemas: { params: KeyIdParams, query: OwnerQuery },
    async handler({ auth, params, query, clients, teams }) {
      assertEnabled(auth, kind);
      const { ownerId } = await visibleKey(auth, clients, teams, kind, params.api_key_id, query);
      const { apiKey } = await clients.apiKeys.getApiKey({ projectId: auth.projectId, type: typeOf(kind), apiKeyId: params.api_key_id, ownerId: ownerId ?? "" });
      return { json: apiKeyView(apiKey!) };
    },
  });

  const update = defineRoute({
    method: "PATCH",
    path: `${base}/:api_key_id`,
    summary: `Change a ${kind} API key's description or expiry, or revoke it`,
    tags,
    access: ANY,
    schemas: {
      params: KeyIdParams,
      query: OwnerQuery,
      body: Obj({ description: Optional(Description), expires_at_millis: Optional(Expiry), revoked: Optional(OneOf([true])) }),
    },
    async handler({ auth, params, query, body, clients, teams, apiKeyChecks }) {
      assertEnabled(auth, kind);
      const { ownerId } = await visibleKey(auth, clients, teams, kind, params.api_key_id, query);
      const { apiKey } = await clients.apiKeys.updateApiKey({
        projectId: auth.projectId,
        type: typeOf(kind),
        apiKeyId: params.api_key_id,
        ownerId: ownerId ?? "",
        description: body.description,
        expiresAtMillis: body.expires_at_millis === undefined ? undefined : body.expires_at_millis === null ? {} : { value: BigInt(body.expires_at_millis) },
        revoke: body.revoked === true,
      });
      // This gateway at once (a caller's next check sees its own change); the others when the event arrives.
      apiKeyChecks.invalidate(apiKey!.id);
      return { json: apiKeyView(apiKey!) };
    },
  });

  const check = defineRoute({
    method: "POST",
    path: `${base}/check`,
    summary: `Validate a ${kind} API key: the key, or API_KEY_NOT_FOUND / WRONG_API_KEY_TYPE / API_KEY_REVOKED / API_KEY_EXPIRED`,
    tags,
    access: SERVER,
    schemas: { body: Obj({ api_key: Type.String() }) },
    async handler({ auth, body, apiKeyChecks }) {
      assertEnabled(auth, kind);
      return { json: apiKeyView(await apiKeyChecks.check(auth.projectId, kind, body.api_key)) };
    },
  });

  return [check, create, list, get, update];
}

export const userApiKeyRoutes = routesFor("user");
export const teamApiKeyRoutes = routesFor("team");
