import { createHash } from "node:crypto";
import { Code, ConnectError, createClient, type Client, type Interceptor, type Transport } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport } from "@connectrpc/connect-node";
import type { DescService } from "@bufbuild/protobuf";
import { Health } from "@vestibule/proto/grpc/health/v1/health";
import { currentRequestId, REQUEST_ID_HEADER } from "../context/index.ts";
import { injectTraceContext, inSpan, rpcAttributes, SpanKind, tracingEnabled } from "../tracing/index.ts";
import { SERVICE_TOKEN_HEADER, serviceTokenSource } from "./service-auth.ts";
import { replicatedTransport } from "./replicas.ts";

/** The URLs of a `baseUrl` that lists replicas, comma-separated (one element for a single URL). */
export function replicaUrls(baseUrl: string): string[] {
  return baseUrl.split(",").map((u) => u.trim()).filter((u) => u !== "");
}

export interface ServiceClientOptions {
  /** e.g. http://127.0.0.1:8111 (h2c), or the replicas' URLs comma-separated (see replicas.ts). */
  readonly baseUrl: string;
  /** Machine name of the calling service, e.g. "gateway". */
  readonly caller: string;
  readonly secret: string;
  /** Per-call deadline; default 10 s. */
  readonly timeoutMs?: number;
}

const transports = new Map<string, Transport>();

/** Node error codes of a connection or HTTP/2 session that broke under a call: the peer went away. */
const CONNECTION_LOST = /^(ECONNRESET|ECONNREFUSED|EPIPE|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|ERR_STREAM_DESTROYED|ERR_STREAM_PREMATURE_CLOSE|ERR_HTTP2_.*)$/;

function lostConnection(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && CONNECTION_LOST.test(code)) return true;
  }
  return false;
}

/**
 * A call that failed because the connection broke (the peer was killed, restarted or is unreachable) is `Unavailable`,
 * whatever code connect-node chose for the node error (it reports a reset stream as Aborted and an HTTP/2 session
 * error as Internal): callers then treat it as the service being down (the gateway answers 503), never as a fault of
 * the request. Errors the peer sent (with their details) are left alone.
 */
const unavailableOnConnectionLoss: Interceptor = (next) => async (req) => {
  try {
    return await next(req);
  } catch (err) {
    // Canceled without our signal aborting: the HTTP/2 session under the call was torn down (RST_STREAM CANCEL).
    const cutOff = err instanceof ConnectError && (lostConnection(err.cause) || (err.code === Code.Canceled && !req.signal.aborted));
    if (cutOff && err.code !== Code.Unavailable && err.details.length === 0) {
      throw new ConnectError(`connection to the service lost: ${err.rawMessage}`, Code.Unavailable, err.metadata, undefined, err);
    }
    throw err;
  }
};

/**
 * One Connect-protocol transport (HTTP/2, h2c, binary protobuf) per (base URL, caller). Every service serves gRPC and
 * the Connect protocol on one port; service clients speak Connect because connect-node answers a Connect unary call
 * without the gRPC path's streaming machinery (envelopes, trailers, async-iterable pipes): on the 2-core machine that
 * cut the CPU of a batched call by about a quarter on the serving side and a sixth on the calling side (issue 19:
 * token refreshes, item reads). gRPC clients (grpc-js, grpcurl) still reach every service. Connections are shared by
 * every client of that service, kept alive with pings, and re-established by connect-node after the peer restarts.
 * Messages travel uncompressed (no accepted encodings, so servers do not gzip answers over 1 KiB): services talk over
 * loopback or a private network, where gzip only costs CPU on both ends (it was ≈0.02 ms per token refresh on each
 * side of a batch). A call cut off by a lost connection fails with Code.Unavailable (see `unavailableOnConnectionLoss`).
 * A `baseUrl` that lists several replicas gets one transport per replica under a `replicatedTransport` (round-robin,
 * safe retries).
 */
export function serviceTransport(opts: ServiceClientOptions): Transport {
  const urls = replicaUrls(opts.baseUrl);
  if (urls.length > 1) {
    const key = `${urls.join(",")}|${opts.caller}|${opts.timeoutMs ?? ""}|${createHash("sha256").update(opts.secret).digest("hex")}`;
    let t = transports.get(key);
    if (!t) {
      t = replicatedTransport(urls.map((url) => ({ url, transport: serviceTransport({ ...opts, baseUrl: url }) })));
      transports.set(key, t);
    }
    return t;
  }
  const key = `${opts.baseUrl}|${opts.caller}|${opts.timeoutMs ?? ""}|${createHash("sha256").update(opts.secret).digest("hex")}`;
  let t = transports.get(key);
  if (!t) {
    const token = serviceTokenSource(opts.secret, opts.caller);
    const auth: Interceptor = (next) => async (req) => {
      req.header.set(SERVICE_TOKEN_HEADER, token(`${req.service.typeName}/${req.method.name}`));
      const requestId = currentRequestId();
      if (requestId) req.header.set(REQUEST_ID_HEADER, requestId);
      if (!tracingEnabled()) return next(req);
      return inSpan(`${req.service.typeName}/${req.method.name}`, { kind: SpanKind.CLIENT, attributes: rpcAttributes(req, "connect_rpc") }, () => {
        injectTraceContext((key, value) => req.header.set(key, value));
        return next(req);
      });
    };
    t = createConnectTransport({
      baseUrl: opts.baseUrl,
      httpVersion: "2",
      useBinaryFormat: true,
      interceptors: [unavailableOnConnectionLoss, auth],
      acceptCompression: [],
      defaultTimeoutMs: opts.timeoutMs ?? 10_000,
      pingIntervalMs: 15_000,
      pingTimeoutMs: 5_000,
      idleConnectionTimeoutMs: 60_000,
    });
    transports.set(key, t);
  }
  return t;
}

/** An authenticated client of another Vestibule service. */
export function createServiceClient<T extends DescService>(service: T, opts: ServiceClientOptions): Client<T> {
  return createClient(service, serviceTransport(opts));
}

/**
 * A client of the standard gRPC health service (needs no credentials). With several replicas' URLs, a check answers
 * for the first replica that is reachable.
 */
export function createHealthClient(baseUrl: string, timeoutMs = 2000): Client<typeof Health> {
  const urls = replicaUrls(baseUrl);
  const one = (url: string): Transport => createGrpcTransport({ baseUrl: url, defaultTimeoutMs: timeoutMs });
  return createClient(Health, urls.length > 1 ? replicatedTransport(urls.map((url) => ({ url, transport: one(url) }))) : one(baseUrl));
}
