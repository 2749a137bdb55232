/** Small guarded accessors for browser globals, so the SDK imports and runs in Node, workers and browsers alike. */

interface LocationLike {
  readonly href: string;
  readonly origin: string;
  readonly protocol: string;
  readonly hostname: string;
  assign(url: string): void;
  replace(url: string): void;
  reload(): void;
}

const g = globalThis as unknown as {
  window?: {
    location: LocationLike;
    sessionStorage?: { getItem(k: string): string | null; setItem(k: string, v: string): void; removeItem?(k: string): void };
    history?: { replaceState(data: unknown, unused: string, url?: string): void };
    alert?: (message: string) => void;
  };
  document?: { cookie: string };
  sessionStorage?: { getItem(k: string): string | null; setItem(k: string, v: string): void; removeItem(k: string): void };
  navigator?: { credentials?: CredentialsContainer };
};

export function browserLocation(): LocationLike | null {
  return g.window?.location ?? null;
}

export function currentOrigin(): string | null {
  return browserLocation()?.origin ?? null;
}

export function currentHref(): string | null {
  return browserLocation()?.href ?? null;
}

export function replaceHistoryUrl(url: string): void {
  g.window?.history?.replaceState(null, "", url);
}

export function browserAlert(message: string): void {
  g.window?.alert?.(message);
}

/** The page's session storage (`window.sessionStorage`, else a global one), or null outside a browser. */
export function sessionStorageOrNull(): { getItem(k: string): string | null; setItem(k: string, v: string): void; removeItem?(k: string): void } | null {
  try {
    return g.window?.sessionStorage ?? g.sessionStorage ?? null;
  } catch {
    return null; // storage disabled by the browser
  }
}

export function readCookie(name: string): string | null {
  const doc = g.document;
  if (!doc) return null;
  for (const part of doc.cookie.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return decodeURIComponent(part.slice(eq + 1).trim());
  }
  return null;
}

export function writeCookie(assignment: string): void {
  if (g.document) g.document.cookie = assignment;
}

export function webAuthn(): CredentialsContainer | null {
  return g.navigator?.credentials ?? null;
}
