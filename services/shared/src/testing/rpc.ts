import { fromConnectError, type KnownError, type StatusError } from "../errors/index.ts";

/** Test helpers for RPC calls and eventual effects, shared by every service's integration tests. */

/** The error a call fails with (a known error or a status error); fails the test when the call succeeds. */
export async function rpcError(p: Promise<unknown>): Promise<KnownError | StatusError> {
  try {
    await p;
  } catch (err) {
    const e = fromConnectError(err);
    if (!e) throw err;
    return e;
  }
  throw new Error("expected the call to fail");
}

/** Code of a known error, or `<status> <text>` of a status error. */
export async function failure(p: Promise<unknown>): Promise<string> {
  const e = await rpcError(p);
  return "code" in e ? e.code : `${e.httpStatus} ${e.message}`;
}

/** Polls `fn` until it gives something other than undefined/false (rejects on its error or after `timeoutMs`). */
export function waitFor<T>(fn: () => Promise<T | undefined | false>, timeoutMs = 10_000, intervalMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const tick = async () => {
      try {
        const v = await fn();
        if (v !== undefined && v !== false) return resolve(v);
      } catch (err) {
        return reject(err);
      }
      if (Date.now() > deadline) return reject(new Error("timed out waiting"));
      setTimeout(tick, intervalMs);
    };
    void tick();
  });
}
