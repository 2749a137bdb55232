import { AsyncLocalStorage } from "node:async_hooks";

/**
 * What travels with one unit of work (an API request, an RPC, an event delivery): the request id that the gateway
 * assigned and, inside a service, the authenticated calling service. Logs read it; RPC clients and the outbox copy
 * the request id into Connect metadata (`x-request-id`) and event envelopes.
 */
export interface RequestContext {
  readonly requestId: string;
  /** Machine name of the calling service (set by the RPC server after service authentication). */
  readonly caller?: string;
}

const storage = new AsyncLocalStorage<RequestContext>();

export function runWithContext<T>(context: RequestContext, fn: () => T): T {
  return storage.run(context, fn);
}

export function currentContext(): RequestContext | undefined {
  return storage.getStore();
}

export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}

/** Metadata header that carries the request id between services. */
export const REQUEST_ID_HEADER = "x-request-id";
