/**
 * Remotes are located at run time: the shell reads /remotes.json (served by the frontends server, which a deployment
 * can point anywhere) and registers each remote's mf-manifest.json with the Module Federation runtime. No remote URL
 * is part of the shell's build.
 */
import { loadRemote, registerRemotes } from "@module-federation/enhanced/runtime";
import type { ManifestRemote, RuntimeManifest } from "@vestibule/ui";

let registered = false;

export function registerManifest(manifest: RuntimeManifest): void {
  if (registered) return;
  const all: ManifestRemote[] = [manifest.handler, ...manifest.areas];
  registerRemotes(all.map((r) => ({ name: r.name, entry: new URL(r.entry, location.href).toString() })));
  registered = true;
}

/** Modules already loaded, by id: rendering one of them needs no Suspense round (see `loadedFederated`). */
const loaded = new Map<string, unknown>();

/** Loads `<remote>/<module>`; rejects (never resolves to nothing) when the remote cannot be reached. */
export async function loadFederated<T>(id: string): Promise<T> {
  const mod = await loadRemote<T>(id);
  if (mod === null || mod === undefined) throw new Error(`The module ${id} could not be loaded.`);
  loaded.set(id, mod);
  return mod;
}

/** The module `id` if it has already been loaded, else undefined. */
export function loadedFederated<T>(id: string): T | undefined {
  return loaded.get(id) as T | undefined;
}

/**
 * Loads the modules `ids` one after the other while the browser is idle, so that a later first visit to one of them
 * only renders it. Failures are left to the visit itself (it shows the remote's error panel and "Try again").
 * React reveals content that suspended no sooner than 300 ms after its fallback appeared, so a cold area switch that
 * suspends on its code cannot be quicker than that; a preloaded area does not suspend.
 */
export function preloadFederated(ids: readonly string[]): () => void {
  const idle = (fn: () => void): (() => void) => {
    if (typeof requestIdleCallback === "function") {
      const handle = requestIdleCallback(fn, { timeout: 2_000 });
      return () => cancelIdleCallback(handle);
    }
    const handle = setTimeout(fn, 200);
    return () => clearTimeout(handle);
  };
  let cancel: () => void = () => undefined;
  let stopped = false;
  const next = (i: number) => {
    const id = ids[i];
    if (stopped || id === undefined) return;
    if (loaded.has(id)) return next(i + 1);
    cancel = idle(() => void loadFederated(id).catch(() => undefined).finally(() => next(i + 1)));
  };
  next(0);
  return () => {
    stopped = true;
    cancel();
  };
}
