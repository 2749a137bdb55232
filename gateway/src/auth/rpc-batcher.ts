import { randomUUID } from "node:crypto";
import { Code, ConnectError } from "@connectrpc/connect";
import { currentRequestId, runWithContext } from "@vestibule/shared/context";
import { itemErrorToConnectError, type ItemErrorFields } from "@vestibule/shared/errors";

export interface RpcBatcherOptions {
  /** A batch is sent as soon as this many calls wait. Default 64. */
  readonly maxBatch?: number;
  /**
   * Batches on the way to the service at once; calls arriving meanwhile wait for the next batch (so batches grow with
   * the load instead of the number of calls). Default 2.
   */
  readonly maxInFlight?: number;
}

/** One item's outcome in a batch answer: the single call's response, or the error it would have failed with. */
export type BatchOutcome<Res> = { readonly case: "ok"; readonly value: Res } | { readonly case: "error"; readonly value: ItemErrorFields } | { readonly case: undefined; readonly value?: undefined };

/** How a batcher talks to its service. */
export interface BatchTransport<Req, Res> {
  /** The service that answers (errors are tagged with it, so a 503 text names it). */
  readonly service: string;
  /** Prefix of the request id of a batch of several calls, e.g. "refresh-batch". */
  readonly name: string;
  /** The batched RPC: one outcome per request, in order. */
  sendBatch(requests: Req[]): Promise<BatchOutcome<Res>[]>;
  /** The single RPC, used while the service has no batched one (rolling upgrade). */
  sendOne(request: Req): Promise<Res>;
}

interface Waiting<Req, Res> {
  readonly request: Req;
  readonly requestId: string | undefined;
  resolve(value: Res): void;
  reject(reason: unknown): void;
}

/** How long to use single calls after the service said it has no batched RPC (older version). */
const SINGLE_CALLS_AFTER_UNIMPLEMENTED_MS = 60_000;

/**
 * Micro-batching of one kind of RPC: concurrent calls travel to the service in one batched call instead of one RPC
 * each, because the fixed cost of an RPC (≈0.5 ms of CPU on each side) is larger than the work of many calls (token
 * refreshes, password sign-ins). A call waits at most until the end of the current event-loop turn (setImmediate) or
 * until `maxBatch` are waiting, so a lone call is not slowed noticeably; while `maxInFlight` batches are under way,
 * new calls gather for the next one.
 *
 * Each call resolves with its own response or rejects with the ConnectError the single call would have failed with
 * (same code, message and KnownErrorDetail / StatusErrorDetail, so the gateway answers exactly as before). A failure
 * of the whole batched call (service down, deadline) rejects every call of the batch with that error.
 */
export class RpcBatcher<Req, Res> {
  private queue: Waiting<Req, Res>[] = [];
  private scheduled = false;
  private inFlight = 0;
  private singleCallsUntil = 0;
  private readonly maxBatch: number;
  private readonly maxInFlight: number;
  private readonly flushSoon = () => {
    this.scheduled = false;
    this.flush();
  };

  constructor(
    private readonly transport: BatchTransport<Req, Res>,
    options: RpcBatcherOptions = {},
  ) {
    this.maxBatch = Math.max(1, options.maxBatch ?? 64);
    this.maxInFlight = Math.max(1, options.maxInFlight ?? 2);
  }

  call(request: Req): Promise<Res> {
    return new Promise<Res>((resolve, reject) => {
      this.queue.push({ request, requestId: currentRequestId(), resolve, reject });
      if (this.queue.length >= this.maxBatch) this.flush();
      else if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(this.flushSoon);
      }
    });
  }

  /** Calls waiting for a batch (for tests and metrics). */
  get waiting(): number {
    return this.queue.length;
  }

  private flush(): void {
    while (this.queue.length > 0 && (this.inFlight < this.maxInFlight || this.queue.length >= this.maxBatch)) {
      const batch = this.queue.length <= this.maxBatch ? this.queue : this.queue.slice(0, this.maxBatch);
      this.queue = this.queue.length <= this.maxBatch ? [] : this.queue.slice(this.maxBatch);
      this.inFlight++;
      // A batch of one keeps its request id; a larger one gets its own (it serves several HTTP requests).
      const requestId = batch.length === 1 && batch[0]!.requestId ? batch[0]!.requestId : `${this.transport.name}-${randomUUID()}`;
      void runWithContext({ requestId }, () => this.send(batch))
        .catch((err: unknown) => {
          for (const w of batch) w.reject(err);
        })
        .finally(() => {
          this.inFlight--;
          if (this.queue.length > 0 && !this.scheduled) this.flush();
        });
    }
  }

  private async send(batch: Waiting<Req, Res>[]): Promise<void> {
    if (Date.now() < this.singleCallsUntil) return this.sendSingly(batch);
    let results: BatchOutcome<Res>[];
    try {
      results = await this.transport.sendBatch(batch.map((w) => w.request));
    } catch (err) {
      if (err instanceof ConnectError && err.code === Code.Unimplemented) {
        this.singleCallsUntil = Date.now() + SINGLE_CALLS_AFTER_UNIMPLEMENTED_MS;
        return this.sendSingly(batch);
      }
      for (const w of batch) w.reject(err);
      return;
    }
    if (results.length !== batch.length) {
      const err = this.tag(new ConnectError(`${this.transport.name}: ${results.length} results for ${batch.length} requests`, Code.Internal));
      for (const w of batch) w.reject(err);
      return;
    }
    batch.forEach((w, i) => {
      const outcome = results[i]!;
      if (outcome.case === "ok") w.resolve(outcome.value);
      else w.reject(this.itemError(outcome.value));
    });
  }

  /** The ConnectError a single call would have failed with. */
  itemError(e: ItemErrorFields | undefined): ConnectError {
    if (!e) return this.tag(new ConnectError(`${this.transport.name}: an empty result`, Code.Internal));
    return this.tag(itemErrorToConnectError(e));
  }

  /** A service without the batched RPC (rolling upgrade): one single call per request, as before. */
  private async sendSingly(batch: Waiting<Req, Res>[]): Promise<void> {
    await Promise.all(
      batch.map((w) => runWithContext({ requestId: w.requestId ?? randomUUID() }, () => this.transport.sendOne(w.request)).then(w.resolve, w.reject)),
    );
  }

  /** Tags the error with the service, like the gateway's RPC clients do (a 503 text names it). */
  private tag(err: ConnectError): ConnectError {
    return Object.assign(err, { service: this.transport.service });
  }
}
