import { Result, type KnownError } from "@vestibule/sdk-core";

/** A known-error class of @vestibule/sdk-core (`KnownErrors.X`). */
export type KnownErrorClass = { isInstance(e: unknown): boolean; new (...args: never[]): KnownError };

/** Runs `fn`, returning errors of the given known-error classes as an error result. */
export async function catchKnown<T, C extends KnownErrorClass>(
  fn: () => Promise<T>,
  ...classes: C[]
): Promise<Result<T, InstanceType<C>>> {
  try {
    return Result.ok(await fn());
  } catch (err) {
    if (classes.some((c) => c.isInstance(err))) return Result.error(err as InstanceType<C>);
    throw err;
  }
}
