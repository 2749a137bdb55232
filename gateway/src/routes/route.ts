import type { FastifyReply, FastifyRequest } from "fastify";
import type { Static, TSchema } from "typebox";
import { knownError } from "@vestibule/shared/errors";
import type { RequestAuth, AccessType } from "../auth/request-auth.ts";
import type { GatewayState } from "../state.ts";

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

export interface RouteSchemas {
  readonly body?: TSchema;
  readonly query?: TSchema;
  readonly params?: TSchema;
}

type StaticOr<T, D> = T extends TSchema ? Static<T> : D;

/** Everything a route handler may use. Handlers hold no state; they translate REST to RPCs and back. */
export interface RouteContext<S extends RouteSchemas, A> extends GatewayState {
  readonly auth: A;
  readonly body: StaticOr<S["body"], undefined>;
  readonly query: StaticOr<S["query"], Record<string, never>>;
  readonly params: StaticOr<S["params"], Record<string, never>>;
  readonly req: FastifyRequest;
  readonly reply: FastifyReply;
  /** End-user IP (socket address, or the forwarded one when VESTIBULE_TRUST_PROXY allows it). */
  readonly clientIp: string;
}

/** What a handler returns: JSON with a status (default 200), plain text, or a reply it sent itself. */
export type RouteResult = { status?: number; json: unknown } | { status?: number; text: string } | { sent: true };

/**
 * "none": public endpoint, works without an access type (headers are still authenticated when given);
 * otherwise the access types the endpoint accepts (wrong type → INSUFFICIENT_ACCESS_TYPE, none → ACCESS_TYPE_REQUIRED).
 */
export type Access = "none" | readonly AccessType[];

/**
 * How the endpoint reacts to a missing signed-in user (contract: a schema line, USER_AUTHENTICATION_REQUIRED, or, for
 * sign-out, the reference's ACCESS_TOKEN_EXPIRED). Checked after validation.
 */
export type UserRequirement = "optional" | "schema" | "known-error" | "access-token-expired";

export interface RouteSpec<S extends RouteSchemas = RouteSchemas, A extends Access = Access> {
  readonly method: HttpMethod;
  /** Path below /api/v1 with fastify params, e.g. "/internal/api-keys/:api_key_id". */
  readonly path: string;
  readonly summary: string;
  readonly tags: readonly string[];
  readonly access: A;
  readonly user?: UserRequirement;
  /**
   * "internal": the route serves only signed-in users of the `internal` project (project owners); any other project
   * gets EXPECTED_INTERNAL_PROJECT from the handler. Read by the access matrix (issue 18) to derive its expectations.
   */
  readonly project?: "internal";
  /**
   * Narrower access for some values of a path parameter (e.g. server keys may change only the `branch` config level):
   * checked after validation, INSUFFICIENT_ACCESS_TYPE listing the narrower types.
   */
  readonly accessByParam?: { readonly param: string; readonly access: Readonly<Record<string, readonly AccessType[]>> };
  readonly schemas: S;
  /** Largest request body of this route in bytes (default: the gateway's VESTIBULE_BODY_LIMIT). */
  readonly bodyLimit?: number;
  /**
   * Turns the parsed body into what the body schema validates (e.g. a gzip `application/octet-stream` body into
   * JSON); runs after the access check, before validation.
   */
  decodeBody?(body: unknown): Promise<unknown>;
  handler(ctx: RouteContext<S, A extends "none" ? RequestAuth | null : RequestAuth>): Promise<RouteResult>;
}

export function defineRoute<const S extends RouteSchemas, const A extends Access>(spec: RouteSpec<S, A>): RouteSpec<S, A> {
  return spec;
}

/** The narrower access of `accessByParam`, run after validation (the parameter is then known to be valid). */
export function checkParamAccess(route: Pick<RouteSpec, "accessByParam">, auth: RequestAuth | null, params: unknown): void {
  if (!route.accessByParam || !auth) return;
  const value = (params as Record<string, unknown> | undefined)?.[route.accessByParam.param];
  const allowed = typeof value === "string" ? route.accessByParam.access[value] : undefined;
  if (allowed && !allowed.includes(auth.type)) {
    throw knownError("INSUFFICIENT_ACCESS_TYPE", { actual_access_type: auth.type, allowed_access_types: [...allowed] });
  }
}

/** The contract's access-type check, run before body/query validation. */
export function checkAccess(access: Access, auth: RequestAuth | null): void {
  if (access === "none") return;
  if (!auth) throw knownError("ACCESS_TYPE_REQUIRED");
  if (!access.includes(auth.type)) {
    throw knownError("INSUFFICIENT_ACCESS_TYPE", { actual_access_type: auth.type, allowed_access_types: [...access] });
  }
}
