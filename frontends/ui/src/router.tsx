/**
 * A small client-side router over the History API (no dependency): the current location as a hook, navigation that
 * every mounted app sees (host and remotes share this module as an MF singleton), and an accessible <Link>.
 */
import { useSyncExternalStore, type AnchorHTMLAttributes, type MouseEvent } from "react";

const listeners = new Set<() => void>();
const notify = () => {
  for (const l of listeners) l();
};
if (typeof window !== "undefined") window.addEventListener("popstate", notify);

function subscribe(l: () => void): () => void {
  listeners.add(l);
  return () => listeners.delete(l);
}

const snapshot = () => (typeof location === "undefined" ? "/" : location.pathname + location.search + location.hash);

export interface LocationState {
  readonly pathname: string;
  readonly search: URLSearchParams;
  readonly href: string;
}

/** The current path and query; re-renders on navigation. */
export function useLocation(): LocationState {
  const href = useSyncExternalStore(subscribe, snapshot, () => "/");
  const url = new URL(href, "http://x.invalid");
  return { pathname: url.pathname, search: url.searchParams, href };
}

/** Navigates inside the page (pushState) for same-origin paths; other URLs load normally. */
export function navigate(to: string, options: { replace?: boolean } = {}): void {
  const url = new URL(to, location.href);
  if (url.origin !== location.origin) {
    if (options.replace) location.replace(url.toString());
    else location.assign(url.toString());
    return;
  }
  const target = url.pathname + url.search + url.hash;
  if (options.replace) history.replaceState(null, "", target);
  else history.pushState(null, "", target);
  window.scrollTo?.(0, 0);
  notify();
}

/** Replaces the address without navigating (e.g. dropping one-time codes from the query). */
export function replaceAddress(to: string): void {
  history.replaceState(history.state, "", to);
  notify();
}

export function Link({ href, onClick, ...rest }: AnchorHTMLAttributes<HTMLAnchorElement> & { href: string }) {
  const handle = (e: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(e);
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey || rest.target) return;
    const url = new URL(href, location.href);
    if (url.origin !== location.origin) return;
    e.preventDefault();
    navigate(href);
  };
  return <a href={href} onClick={handle} {...rest} />;
}

/** Matches `pattern` ("/projects/:id/users") against a path; returns the parameters or null. Prefix match with `end: false`. */
export function matchPath(pattern: string, pathname: string, options: { end?: boolean } = {}): Record<string, string> | null {
  const p = pattern.split("/").filter(Boolean);
  const s = pathname.split("/").filter(Boolean);
  if (s.length < p.length || ((options.end ?? true) && s.length !== p.length)) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < p.length; i++) {
    if (p[i]!.startsWith(":")) {
      try {
        params[p[i]!.slice(1)] = decodeURIComponent(s[i]!);
      } catch {
        return null;
      }
    } else if (p[i] !== s[i]) return null;
  }
  return params;
}
