import type { FastifyRequest } from "fastify";
import { knownError } from "@vestibule/shared/errors";
import { isUuid } from "@vestibule/shared/ids";
import { header, nonEmptyHeader } from "../http/headers.ts";
import type { User } from "@vestibule/proto/identity/v1/user";
import type { CachedProject, KeyCache, ProjectCache } from "./caches.ts";
import type { UserCache } from "./user-cache.ts";
import { restrictionOfUser, userViewProject } from "../views/user.ts";

import { callerGeneration } from "../http/generation.ts";

export type AccessType = "client" | "server" | "admin";

/**
 * The client secret the current SDK sends to `/auth/oauth/token` (and the authorize URL) when it has no publishable
 * key (latest-sdk.md A2).
 */
export const PUBLIC_CLIENT_SENTINEL = "__stack_public_client__";

/**
 * Whether client access to the project needs a publishable key: `project.requirePublishableClientKey` of its
 * rendered config, true unless the project turned it off (the seed-era contract's rule).
 */
export function requiresPublishableKey(project: CachedProject): boolean {
  const settings = project.renderedConfig.project as { requirePublishableClientKey?: unknown } | undefined;
  return settings?.requirePublishableClientKey !== false;
}

/**
 * A client request without a key to a project that requires one: the current SDK's PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT,
 * or the seed-era CLIENT_AUTHENTICATION_REQUIRED (both are PROJECT_AUTHENTICATION_REQUIRED to the SDKs).
 */
export function publishableKeyRequired(req: FastifyRequest, projectId: string) {
  return callerGeneration(req) === "current"
    ? knownError("PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT", { project_id: projectId })
    : knownError("CLIENT_AUTHENTICATION_REQUIRED");
}
export const ACCESS_TYPES: readonly AccessType[] = ["client", "server", "admin"];

/** The user behind a verified access token. */
export interface AuthUser {
  readonly id: string;
  readonly isAnonymous: boolean;
  /** Session (refresh token row) the token was minted for. */
  readonly refreshTokenId: string;
}

/** A signed-in user of the request: the token's facts plus the user record (from the user cache). */
export interface SignedInUser extends AuthUser {
  readonly record: User;
}

/** What the headers of a request prove, after the contract's checks. `null` = no access type (unauthenticated). */
export interface RequestAuth {
  readonly type: AccessType;
  readonly projectId: string;
  readonly branchId: string;
  readonly project: CachedProject;
  readonly user?: SignedInUser;
  /** `x-stack-refresh-token`, read only by the endpoints that use it. */
  readonly refreshToken?: string;
  /** Set when the request was authorised by an `x-stack-admin-access-token` of a project owner. */
  readonly adminUserId?: string;
  /** The API key set whose secret server / super secret admin key authorised the request (audit log). */
  readonly keySetId?: string;
  /** Development only: the request was opened by the development override key. */
  readonly viaOverrideKey?: boolean;
}

/**
 * Verifies user access tokens and dashboard admin access tokens. The auth service's signing keys arrive with the
 * sign-in work; until a verifier with keys is installed no token can be valid, so every presented token is refused
 * as unparsable, which is exactly what the contract answers for a token we cannot verify.
 */
export interface TokenVerifier {
  verifyAccessToken(token: string, opts: { projectId: string; allowAnonymous: boolean }): Promise<AuthUser>;
  verifyAdminAccessToken(token: string, opts: { projectId: string }): Promise<{ userId: string }>;
}

/**
 * Which projects a user of the `internal` project administers (owner-team membership). Owner teams live in the
 * teams-permissions service; the gateway's hook is OwnerTeamCache.ownership (auth/project-ownership.ts).
 * `noProjectOwnership` (nobody owns anything) is for tests that do not run that service.
 */
export type ProjectOwnership = (internalUserId: string, projectId: string) => Promise<boolean>;
export const noProjectOwnership: ProjectOwnership = async () => false;

export interface AuthDeps {
  readonly projects: ProjectCache;
  readonly keys: KeyCache;
  readonly users: UserCache;
  readonly tokens: TokenVerifier;
  readonly ownership: ProjectOwnership;
  readonly mode: "development" | "production";
}

/**
 * Authenticates a request's headers in the contract's order (headers-and-auth.md §3); the first failure wins.
 * Costs no RPC when the project and the key are cached.
 */
export async function authenticateRequest(req: FastifyRequest, deps: AuthDeps): Promise<RequestAuth | null> {
  const accessType = header(req, "access-type");
  const publishableKey = nonEmptyHeader(req, "publishable-client-key");
  const secretKey = nonEmptyHeader(req, "secret-server-key");
  const adminKey = nonEmptyHeader(req, "super-secret-admin-key");
  const adminAccessToken = nonEmptyHeader(req, "admin-access-token");

  if (accessType === undefined || accessType === "") {
    if (publishableKey || secretKey || adminKey || adminAccessToken) throw knownError("PROJECT_KEY_WITHOUT_ACCESS_TYPE");
    return null;
  }
  if (!(ACCESS_TYPES as readonly string[]).includes(accessType)) {
    throw knownError("INVALID_ACCESS_TYPE", { accessType });
  }
  const type = accessType as AccessType;
  const projectId = nonEmptyHeader(req, "project-id");
  if (!projectId) throw knownError("ACCESS_TYPE_WITHOUT_PROJECT_ID", { request_type: type });

  let tokenUser: AuthUser | undefined;
  const accessToken = nonEmptyHeader(req, "access-token");
  if (accessToken) {
    tokenUser = await deps.tokens.verifyAccessToken(accessToken, {
      projectId,
      allowAnonymous: header(req, "allow-anonymous-user") === "true",
    });
  }

  const project = projectId === "internal" || isUuid(projectId) ? await deps.projects.get(projectId) : null;
  if (!project) throw knownError("CURRENT_PROJECT_NOT_FOUND", { project_id: projectId });

  let adminUserId: string | undefined;
  let keySetId: string | undefined;
  let viaOverrideKey = false;
  const overrideKey = deps.mode === "development" ? nonEmptyHeader(req, "development-override-key") : undefined;
  if (overrideKey && (await deps.keys.check("internal", "super_secret_admin", overrideKey))) {
    // Development only: the internal project's admin key opens every project (dev tooling).
    viaOverrideKey = true;
  } else if (adminAccessToken) {
    adminUserId = (await deps.tokens.verifyAdminAccessToken(adminAccessToken, { projectId })).userId;
    if (!(await deps.ownership(adminUserId, projectId))) throw knownError("ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN");
  } else if (type === "client") {
    if (!publishableKey) {
      // Keyless client access (current SDK without a configured key) unless the project requires keys.
      if (requiresPublishableKey(project)) throw publishableKeyRequired(req, projectId);
    } else if (!(await deps.keys.check(projectId, "publishable_client", publishableKey))) {
      throw knownError("INVALID_PUBLISHABLE_CLIENT_KEY", { project_id: projectId });
    }
  } else if (type === "server") {
    if (!secretKey) throw knownError("SERVER_AUTHENTICATION_REQUIRED");
    keySetId = await deps.keys.keySetId(projectId, "secret_server", secretKey);
    if (keySetId === undefined) throw knownError("INVALID_SECRET_SERVER_KEY", { project_id: projectId });
  } else {
    if (!adminKey) throw knownError("ADMIN_AUTHENTICATION_REQUIRED");
    keySetId = await deps.keys.keySetId(projectId, "super_secret_admin", adminKey);
    if (keySetId === undefined) throw knownError("INVALID_SUPER_SECRET_ADMIN_KEY", { project_id: projectId });
  }

  const branchId = header(req, "branch-id") || "main";
  if (branchId !== "main") throw knownError("BRANCH_DOES_NOT_EXIST", { branch_id: branchId });

  // A valid token whose user no longer exists: the request simply has no user (contract §3.5).
  let user: SignedInUser | undefined;
  if (tokenUser) {
    const record = await deps.users.get(projectId, tokenUser.id);
    if (record) user = { ...tokenUser, record };
  }
  // A restricted user's token needs the caller to admit restricted users (latest-sdk.md A6: allow-anonymous-user
  // admits them too; both SDK generations always send it). Anonymous users were checked with the token above.
  if (user && !user.record.isAnonymous && header(req, "allow-restricted-user") !== "true" && header(req, "allow-anonymous-user") !== "true") {
    const restriction = restrictionOfUser(user.record, userViewProject(project));
    if (restriction.reason) throw knownError("RESTRICTED_USER_NOT_ALLOWED", { restricted_reason: restriction.reason });
  }

  return {
    type,
    projectId,
    branchId,
    project,
    user,
    adminUserId,
    keySetId,
    viaOverrideKey,
    refreshToken: nonEmptyHeader(req, "refresh-token"),
  };
}
