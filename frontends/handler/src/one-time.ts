/**
 * One-time codes from e-mail links (`?code=`): read once, then removed from the address bar (so they do not stay in
 * history or get shared), and their action run once even if React mounts the page twice.
 */
import { useState } from "react";
import { replaceAddress } from "@vestibule/ui";

/** Reads `name` from the address on first render; with `remove`, drops it from the address. */
export function useQueryCode(name: string, options: { remove: boolean }): string | null {
  const [code] = useState(() => {
    const url = new URL(location.href);
    const value = url.searchParams.get(name);
    if (value !== null && options.remove) {
      url.searchParams.delete(name);
      replaceAddress(url.pathname + url.search + url.hash);
    }
    return value;
  });
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
