/**
 * `useDebounced`: a value once it has stayed the same for a while (a search box, a source being typed). A module of
 * its own, outside the UI kit's index (as admin-audience.ts), so the hosted pages' bundle does not grow by it.
 */
import { useEffect, useState } from "react";

export function useDebounced<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return settled;
}
