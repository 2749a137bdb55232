/**
 * The building blocks of the known-error catalogue: value types of details, the status → Connect code table, and
 * `leaf()` with its field descriptors, which give both the runtime key lists and the static input types of a code.
 * Split from catalogue.ts so the code tables (catalogue.ts for the seed-era SDK, catalogue-current-sdk.ts for the
 * codes the current published SDK added) read in one sitting.
 */
import { Code } from "@connectrpc/connect";
import type { AbstractKnownErrorCode } from "./catalogue-abstract.ts";

// ---------------------------------------------------------------------------------------------------------------
// Value types used by details

export type JsonValue = string | number | boolean | null | readonly JsonValue[] | { readonly [key: string]: JsonValue };
export type AccessType = "client" | "server" | "admin";
export type CustomerType = "user" | "team" | "custom";
export type PermissionScope = "team" | "project";

// ---------------------------------------------------------------------------------------------------------------
// HTTP status → Connect code (the contract only uses these statuses for known errors)

export const CONNECT_CODE_FOR_KNOWN_ERROR_STATUS = {
  400: Code.InvalidArgument,
  401: Code.Unauthenticated,
  403: Code.PermissionDenied,
  404: Code.NotFound,
  408: Code.DeadlineExceeded,
  409: Code.AlreadyExists,
  500: Code.Internal,
  // OAUTH_PROVIDER_TEMPORARILY_UNAVAILABLE (current SDK); a service that is down is a plain-text 503, never this.
  503: Code.Unavailable,
} as const satisfies Record<number, Code>;

export type KnownErrorHttpStatus = keyof typeof CONNECT_CODE_FOR_KNOWN_ERROR_STATUS;

// ---------------------------------------------------------------------------------------------------------------
// Field descriptors: one declaration gives both the runtime key list and the static type of a key.

export interface Field<T, Optional extends boolean> {
  readonly optional: Optional;
  /** Phantom: carries the value type, never set at runtime. */
  readonly __type?: T;
}
export type FieldMap = { readonly [key: string]: Field<unknown, boolean> };

export const required = <T>(): Field<T, false> => ({ optional: false });
export const optional = <T>(): Field<T, true> => ({ optional: true });

export type Simplify<T> = { [K in keyof T]: T[K] } & {};
export type FieldType<F> = F extends Field<infer T, boolean> ? T : never;
export type Resolve<M> = M extends FieldMap
  ? Simplify<
      { [K in keyof M as M[K] extends Field<unknown, true> ? never : K]: FieldType<M[K]> } & {
        [K in keyof M as M[K] extends Field<unknown, true> ? K : never]?: FieldType<M[K]>;
      }
    >
  : undefined;
export type InputFrom<D, P> = D extends FieldMap
  ? P extends FieldMap
    ? Simplify<Resolve<D> & Resolve<P>>
    : Resolve<D>
  : P extends FieldMap
    ? Resolve<P>
    : undefined;

// ---------------------------------------------------------------------------------------------------------------
// Concrete (leaf) codes

export interface LeafDefinition<
  D extends FieldMap | undefined,
  P extends FieldMap | undefined,
  Parent extends AbstractKnownErrorCode | undefined,
> {
  readonly httpStatus: KnownErrorHttpStatus;
  readonly parent?: Parent;
  /** Wire details, in the order Stack sends them. Omitted for codes without details. */
  readonly details?: D;
  /** Message-only inputs, never sent. */
  readonly params?: P;
  readonly message: (input: InputFrom<D, P>) => string;
  readonly doc: string;
}

export interface LeafSpec<D, P, Parent> {
  readonly httpStatus: KnownErrorHttpStatus;
  readonly parent: Parent;
  readonly details: D;
  readonly params: P;
  readonly message: (input: InputFrom<D, P>) => string;
  readonly doc: string;
}

export function leaf<
  D extends FieldMap | undefined = undefined,
  P extends FieldMap | undefined = undefined,
  Parent extends AbstractKnownErrorCode | undefined = undefined,
>(def: LeafDefinition<D, P, Parent>): LeafSpec<D, P, Parent> {
  return {
    httpStatus: def.httpStatus,
    parent: def.parent as Parent,
    details: def.details as D,
    params: def.params as P,
    message: def.message,
    doc: def.doc,
  };
}
