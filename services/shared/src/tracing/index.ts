/**
 * Distributed traces (OpenTelemetry), off by default. A process turns them on with `startTracing` when
 * `OTEL_EXPORTER_OTLP_ENDPOINT` (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) names an OTLP/HTTP collector; then a request
 * is one trace across processes:
 *
 *   gateway HTTP span (SERVER) → RPC client span (CLIENT, `traceparent` in the gRPC metadata) → service span (SERVER)
 *   → event enqueued in the outbox (the envelope keeps `traceparent`) → consumer span (CONSUMER) in each service that
 *   handles the event.
 *
 * Only `@opentelemetry/api` is loaded up front (a few small modules); the SDK and the exporter are imported when tracing
 * is turned on. While it is off, every helper here is a plain call of the wrapped function.
 */
import {
  context,
  INVALID_SPAN_CONTEXT,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
} from "@opentelemetry/api";

export { SpanKind };
export type { Span };

let enabled = false;
/** The span helpers hand out while tracing is off: records nothing. */
export const INERT_SPAN: Span = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);
const tracer = () => trace.getTracer("vestibule");

export interface Tracing {
  /** Exports the spans still buffered and stops. */
  shutdown(): Promise<void>;
}

/** Whether this process records spans (startTracing found a collector). */
export function tracingEnabled(): boolean {
  return enabled;
}

/**
 * Turns tracing on for this process when the environment names an OTLP collector (standard OTEL_* variables:
 * OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, OTEL_SERVICE_NAME, OTEL_BSP_SCHEDULE_DELAY,
 * OTEL_TRACES_SAMPLER_ARG as a ratio, OTEL_SDK_DISABLED). Returns undefined when it stays off.
 */
export async function startTracing(serviceName: string, env: Readonly<Record<string, string | undefined>> = process.env): Promise<Tracing | undefined> {
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (!endpoint || env.OTEL_SDK_DISABLED === "true" || enabled) return undefined;
  const [{ TracerProvider, BatchSpanProcessor, ParentBasedSampler, TraceIdRatioBasedSampler }, { AsyncLocalStorageContextManager }, { W3CTraceContextPropagator }, { resourceFromAttributes }, { OTLPTraceExporter }] =
    await Promise.all([
      import("@opentelemetry/sdk-trace"),
      import("@opentelemetry/context-async-hooks"),
      import("@opentelemetry/core"),
      import("@opentelemetry/resources"),
      import("@opentelemetry/exporter-trace-otlp-http"),
    ]);
  const url = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || `${endpoint.replace(/\/+$/, "")}/v1/traces`;
  const ratio = Number(env.OTEL_TRACES_SAMPLER_ARG ?? "1");
  const delay = Number(env.OTEL_BSP_SCHEDULE_DELAY ?? "");
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ "service.name": env.OTEL_SERVICE_NAME || `vestibule-${serviceName.replace(/_/g, "-")}`, "service.namespace": "vestibule" }),
    sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(Number.isFinite(ratio) ? ratio : 1) }),
    spanProcessors: [new BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url }), ...(Number.isFinite(delay) && delay > 0 ? { scheduledDelayMillis: delay } : {}) })],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  enabled = true;
  return {
    async shutdown() {
      enabled = false;
      await provider.shutdown();
    },
  };
}

/** W3C trace context read from a carrier (HTTP or gRPC headers, an event envelope). */
export function extractTraceContext(get: (key: string) => string | undefined): Context {
  if (!enabled) return ROOT_CONTEXT;
  return propagation.extract(ROOT_CONTEXT, null, {
    get: (_carrier, key) => get(key),
    keys: () => ["traceparent", "tracestate"],
  });
}

/** Writes the current trace context (`traceparent`, `tracestate`) with `set`. Nothing while tracing is off. */
export function injectTraceContext(set: (key: string, value: string) => void): void {
  if (!enabled) return;
  propagation.inject(context.active(), null, { set: (_carrier, key, value) => set(key, value) });
}

/** The current `traceparent` ("" when tracing is off or no span is active): what an event envelope keeps. */
export function currentTraceparent(): string {
  let value = "";
  injectTraceContext((key, v) => {
    if (key === "traceparent") value = v;
  });
  return value;
}

export interface SpanOptions {
  readonly kind: SpanKind;
  readonly attributes?: Attributes;
  /** The remote parent (extractTraceContext); default the active context. */
  readonly parent?: Context;
  /** Whether a thrown error marks the span as failed (default true). */
  readonly isError?: (err: unknown) => boolean;
}

/**
 * Runs `fn` inside a new active span and ends it when `fn` settles; an error is recorded and rethrown. While tracing is
 * off, `fn` runs as is (with an inert span).
 */
export async function inSpan<T>(name: string, options: SpanOptions, fn: (span: Span) => Promise<T>): Promise<T> {
  if (!enabled) return fn(INERT_SPAN);
  const parent = options.parent ?? context.active();
  return tracer().startActiveSpan(name, { kind: options.kind, attributes: options.attributes }, parent, async (span) => {
    try {
      return await fn(span);
    } catch (err) {
      if (options.isError?.(err) ?? true) {
        span.recordException(err instanceof Error ? err : String(err));
        span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
      }
      throw err;
    } finally {
      span.end();
    }
  });
}

/**
 * Attributes of an RPC span (OpenTelemetry's RPC semantic conventions). Service clients speak the Connect protocol
 * ("connect_rpc"); services also answer gRPC clients ("grpc"), told apart by the request's content type.
 */
export function rpcAttributes(
  req: { readonly service: { readonly typeName: string }; readonly method: { readonly name: string } },
  system: "grpc" | "connect_rpc",
): Attributes {
  return { "rpc.system": system, "rpc.service": req.service.typeName, "rpc.method": req.method.name };
}
