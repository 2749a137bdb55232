import { randomUUID } from "node:crypto";

/** A new version-4 UUID: the id format of every entity in the public contract. */
export function newId(): string {
  return randomUUID();
}

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

/** True for a syntactically valid UUID (any version 1-8, RFC 4122 variant). */
export function isUuid(value: string): boolean {
  return UUID_PATTERN.test(value);
}
