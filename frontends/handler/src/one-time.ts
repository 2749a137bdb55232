/**
 * One-time codes from e-mail links (`?code=`): read once, then removed from the address bar (so they do not stay in
 * history or get shared), and their action run once even if React mounts the page twice.
 *
 * The address is only changed in an effect, after the page committed: React may render a component and throw the
 * render away (a store update during render, Suspense, concurrent rendering); a render that edited the address would
 * leave the next attempt without its code. Removed codes are remembered per path for the page's lifetime, so a page
 * that mounts again after the clean-up still finds its code.
 */
import { useEffect, useState } from "react";
import { replaceAddress } from "@vestibule/ui";

const removed = new Map<string, string>();

/** Reads `name` from the address on first render; with `remove`, drops it from the address once the page is shown. */
export function useQueryCode(name: string, options: { remove: boolean }): string | null {
  const [code] = useState(() => new URL(location.href).searchParams.get(name) ?? removed.get(`${location.pathname}?${name}`) ?? null);
  useEffect(() => {
    if (!options.remove) return;
    const url = new URL(location.href);
    const value = url.searchParams.get(name);
    if (value === null) return;
    removed.set(`${url.pathname}?${name}`, value);
    url.searchParams.delete(name);
    replaceAddress(url.pathname + url.search + url.hash);
  }, [name, options.remove]);
  return code;
}

const runs = new Map<string, Promise<unknown>>();

/** Runs `fn` once per key for the page's lifetime and shares the promise. */
export function once<T>(key: string, fn: () => Promise<T>): Promise<T> {
  let p = runs.get(key) as Promise<T> | undefined;
  if (!p) {
    p = fn();
    runs.set(key, p);
  }
  return p;
}
