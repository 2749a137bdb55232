import type { FastifyRequest } from "fastify";
import { KNOWN_ERRORS, knownError, type KnownError, type SdkGeneration } from "@vestibule/shared/errors";
import { header } from "./headers.ts";

/** The oldest published SDK verified to speak the product dialect (PRODUCT_* codes) while still sending x-stack-. */
const FIRST_PRODUCT_DIALECT_VERSION = [2, 8, 102] as const;

function versionAtLeast(v: readonly number[], min: readonly number[]): boolean {
  for (let i = 0; i < min.length; i++) {
    const a = v[i] ?? 0;
    if (a !== min[i]) return a > min[i]!;
  }
  return true;
}

/**
 * Which published SDK generation sent the request (services/shared/src/errors/ERRORS.md): `current` when it
 * authenticates with `x-hexclave-*` headers only (2.8.108 and later send no `x-stack-*` at all), or when its client
 * version names `@stackframe/<package>@2.8.102` or newer; otherwise `seed` (2.8.41, Vestibule's own SDKs, curl).
 */
export function callerGeneration(req: FastifyRequest): SdkGeneration {
  const h = req.headers;
  if (h["x-hexclave-project-id"] !== undefined && h["x-stack-project-id"] === undefined) return "current";
  const version = /@stackframe\/[a-z-]+@(\d+)\.(\d+)\.(\d+)/.exec(header(req, "client-version") ?? "");
  if (version && versionAtLeast(version.slice(1).map(Number), FIRST_PRODUCT_DIALECT_VERSION)) return "current";
  return "seed";
}

type Details = Record<string, unknown>;

/**
 * A known error in the dialect of the caller's generation, where a code was renamed between the two (offers →
 * products, latest-sdk.md E/F). Codes a generation simply does not know go out unchanged: its SDK reports them as
 * UNSUPPORTED_ERROR, as against Stack's own backend.
 */
export function inCallerDialect(err: KnownError, req: FastifyRequest): KnownError {
  const generation = callerGeneration(req);
  if (KNOWN_ERRORS[err.code].generations.includes(generation)) return err;
  const d = (err.details ?? {}) as Details;
  const str = (v: unknown) => (typeof v === "string" ? v : null);
  switch (err.code) {
    case "OFFER_DOES_NOT_EXIST":
      return knownError("PRODUCT_DOES_NOT_EXIST", { product_id: String(d.offer_id ?? ""), context: null });
    case "PRODUCT_DOES_NOT_EXIST": {
      const access = header(req, "access-type");
      const accessType = access === "server" || access === "admin" ? access : "client";
      return knownError("OFFER_DOES_NOT_EXIST", { offer_id: String(d.product_id ?? ""), access_type: accessType });
    }
    case "OFFER_CUSTOMER_TYPE_DOES_NOT_MATCH":
      return knownError("PRODUCT_CUSTOMER_TYPE_DOES_NOT_MATCH", {
        product_id: str(d.offer_id),
        customer_id: String(d.customer_id ?? ""),
        product_customer_type: (str(d.offer_customer_type) as never) ?? null,
        actual_customer_type: d.actual_customer_type as never,
      });
    case "PRODUCT_CUSTOMER_TYPE_DOES_NOT_MATCH":
      return knownError("OFFER_CUSTOMER_TYPE_DOES_NOT_MATCH", {
        offer_id: str(d.product_id),
        customer_id: String(d.customer_id ?? ""),
        offer_customer_type: (str(d.product_customer_type) as never) ?? null,
        actual_customer_type: d.actual_customer_type as never,
      });
    default:
      return err;
  }
}
