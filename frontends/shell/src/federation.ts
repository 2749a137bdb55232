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

/** Loads `<remote>/<module>`; rejects (never resolves to nothing) when the remote cannot be reached. */
export async function loadFederated<T>(id: string): Promise<T> {
  const mod = await loadRemote<T>(id);
  if (mod === null || mod === undefined) throw new Error(`The module ${id} could not be loaded.`);
  return mod;
}
