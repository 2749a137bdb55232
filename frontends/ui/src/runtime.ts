/**
 * The run-time documents the frontends server injects: `/config.json` (gateway URL, project ids and publishable keys)
 * and `/remotes.json` (where each remote is). Fetched once per page; retried while the platform is still starting.
 */
export interface RuntimeConfig {
  readonly apiUrl: string;
  readonly internalProjectId: string;
  readonly internalPublishableClientKey: string;
  readonly handlerProjectId: string;
  readonly handlerPublishableClientKey: string;
  readonly mode: "development" | "production";
  /** Payments: where the purchase page loads Stripe.js from and the publishable key it uses; absent when not set up. */
  readonly stripe?: { readonly jsUrl: string; readonly publishableKey: string };
}

export interface ManifestRemote {
  readonly name: string;
  readonly entry: string;
  readonly area?: { readonly segment: string; readonly title: string };
}

export interface RuntimeManifest {
  readonly handler: ManifestRemote;
  readonly areas: readonly ManifestRemote[];
}

const cache = new Map<string, Promise<unknown>>();

async function fetchJson<T>(url: string, attempts = 8): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      const res = await fetch(url, { cache: "no-cache" });
      if (res.ok) return (await res.json()) as T;
      if (res.status !== 503 || i >= attempts) throw new Error(`${url} answered ${res.status}`);
    } catch (err) {
      if (i >= attempts) throw err;
    }
    await new Promise((r) => setTimeout(r, Math.min(2_000, 150 * 2 ** i)));
  }
}

function once<T>(url: string): Promise<T> {
  let p = cache.get(url) as Promise<T> | undefined;
  if (!p) {
    p = fetchJson<T>(url);
    p.catch(() => cache.delete(url));
    cache.set(url, p);
  }
  return p;
}

/** `/config.json` of the server the page came from (or `origin`). */
export const loadRuntimeConfig = (origin = ""): Promise<RuntimeConfig> => once<RuntimeConfig>(`${origin}/config.json`);
export const loadRuntimeManifest = (origin = ""): Promise<RuntimeManifest> => once<RuntimeManifest>(`${origin}/remotes.json`);
