/**
 * One app per unique identifier per page: a second app with the same identifier is refused (spec §4), so two copies
 * of an app cannot fight over one token store. Kept on `globalThis` so that even two copies of this module (a
 * micro-frontend that did not share the SDK) see the same registry.
 */
const REGISTRY_KEY = Symbol.for("vestibule.sdk.app-identifiers");

function registry(): Set<string> {
  const g = globalThis as unknown as Record<symbol, Set<string> | undefined>;
  return (g[REGISTRY_KEY] ??= new Set<string>());
}

export const duplicateAppMessage = (id: string): string =>
  `A Vestibule app with the unique identifier ${JSON.stringify(id)} already exists; give each app its own uniqueIdentifier (or reuse the existing app).`;

export function claimAppIdentifier(id: string): void {
  const ids = registry();
  if (ids.has(id)) throw new Error(duplicateAppMessage(id));
  ids.add(id);
}

export function releaseAppIdentifier(id: string): void {
  registry().delete(id);
}
