/**
 * Calls spread over the replicas of one service. Round-robin over the replicas not marked down; a replica whose
 * connection fails is marked down for `downMs` and then gets calls again (the next call is its probe). A failed call
 * moves to the next replica only when that cannot run it twice:
 * - the request never left (connection refused, a session already closed): always;
 * - the connection broke after it was sent: only for RPCs declared free of side effects in the proto
 *   (`option idempotency_level = NO_SIDE_EFFECTS` or `IDEMPOTENT`); any other RPC fails with Unavailable, since the
 *   replica may have committed it.
 * Errors a replica answered (NOT_FOUND, its own Unavailable ...) are never retried here.
 */
import { MethodOptions_IdempotencyLevel } from "@bufbuild/protobuf/wkt";
import type { DescMethod } from "@bufbuild/protobuf";
import { Code, ConnectError, type Transport } from "@connectrpc/connect";

export interface Replica {
  readonly url: string;
  readonly transport: Transport;
}

export interface ReplicaOptions {
  /** How long a replica whose connection failed is skipped. Default 2 s. */
  readonly downMs?: number;
}

/** Node error codes meaning the request was not delivered: nothing ran on the replica. */
const NOT_SENT = /^(ECONNREFUSED|ERR_HTTP2_INVALID_SESSION|ERR_HTTP2_GOAWAY_SESSION)$/;
/** Node error codes of a connection that failed or broke (the replica is down or went away). */
const CONNECTION_FAILED = /^(ECONNRESET|ECONNREFUSED|EPIPE|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|ERR_STREAM_DESTROYED|ERR_STREAM_PREMATURE_CLOSE|ERR_HTTP2_.*)$/;

function causeCodes(err: unknown): string[] {
  const codes: string[] = [];
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string") codes.push(code);
  }
  return codes;
}

/** How a failed call went: "not-sent" (safe to run elsewhere), "lost" (may have run), or "answered" (the replica replied). */
export function failureKind(err: unknown): "not-sent" | "lost" | "answered" {
  if (!(err instanceof ConnectError) || err.code !== Code.Unavailable) return "answered";
  const codes = causeCodes(err.cause);
  if (codes.some((c) => NOT_SENT.test(c))) return "not-sent";
  // Unavailable with a node connection error under it, or made from a torn-down session (see client.ts).
  if (codes.some((c) => CONNECTION_FAILED.test(c)) || err.rawMessage.startsWith("connection to the service lost")) return "lost";
  return "answered";
}

/** True for RPCs the proto declares safe to run twice. */
export function isIdempotent(method: Pick<DescMethod, "idempotency">): boolean {
  return method.idempotency === MethodOptions_IdempotencyLevel.NO_SIDE_EFFECTS || method.idempotency === MethodOptions_IdempotencyLevel.IDEMPOTENT;
}

/** One transport over several replicas (see the module comment). Streaming calls go to one replica, not retried. */
export function replicatedTransport(replicas: readonly Replica[], options: ReplicaOptions = {}): Transport {
  if (replicas.length === 0) throw new Error("replicatedTransport: no replica");
  const downMs = options.downMs ?? 2_000;
  const downUntil = replicas.map(() => 0);
  let next = 0;

  /** Every replica once, starting at the round-robin position, the ones marked down last. */
  const order = (): number[] => {
    const start = next;
    next = (next + 1) % replicas.length;
    const all = replicas.map((_, i) => (start + i) % replicas.length);
    const now = Date.now();
    return [...all.filter((i) => downUntil[i]! <= now), ...all.filter((i) => downUntil[i]! > now)];
  };

  return {
    async unary(method, signal, timeoutMs, header, input, contextValues) {
      const deadline = timeoutMs === undefined ? undefined : Date.now() + timeoutMs;
      const retryLost = isIdempotent(method);
      let lastError: unknown;
      for (const i of order()) {
        const remaining = deadline === undefined ? undefined : Math.max(1, deadline - Date.now());
        try {
          const res = await replicas[i]!.transport.unary(method, signal, remaining, header, input, contextValues);
          downUntil[i] = 0;
          return res;
        } catch (err) {
          const kind = failureKind(err);
          if (kind === "answered") throw err;
          downUntil[i] = Date.now() + downMs;
          if ((kind === "lost" && !retryLost) || signal?.aborted || (deadline !== undefined && Date.now() >= deadline)) throw err;
          lastError = err;
        }
      }
      throw lastError;
    },
    async stream(method, signal, timeoutMs, header, input, contextValues) {
      const i = order()[0]!;
      try {
        return await replicas[i]!.transport.stream(method, signal, timeoutMs, header, input, contextValues);
      } catch (err) {
        if (failureKind(err) !== "answered") downUntil[i] = Date.now() + downMs;
        throw err;
      }
    },
  };
}
