/**
 * Outcomes the spec says are "returned, not thrown" (wrong password, e-mail taken, ...) come back as a `Result`,
 * shaped as in the published SDK: `{ status: "ok", data }` or `{ status: "error", error }`.
 */
export type Result<T, E = unknown> = { readonly status: "ok"; readonly data: T } | { readonly status: "error"; readonly error: E };

export const Result = {
  ok<T>(data: T): Result<T, never> {
    return { status: "ok", data };
  },
  error<E>(error: E): Result<never, E> {
    return { status: "error", error };
  },
  /** The data, or throws the error. */
  orThrow<T, E>(result: Result<T, E>): T {
    if (result.status === "error") throw result.error;
    return result.data;
  },
  /** Runs `fn`; errors accepted by `isExpected` become an error result, anything else is rethrown. */
  async fromExpected<T, E>(fn: () => Promise<T>, isExpected: (err: unknown) => err is E): Promise<Result<T, E>> {
    try {
      return Result.ok(await fn());
    } catch (err) {
      if (isExpected(err)) return Result.error(err);
      throw err;
    }
  },
};
