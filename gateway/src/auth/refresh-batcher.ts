import { randomUUID } from "node:crypto";
import { Code, ConnectError, type Client } from "@connectrpc/connect";
import type { RefreshSessionError, RefreshSessionResponse, SessionService } from "@vestibule/proto/auth/v1/session_service";
import { KnownErrorDetailSchema, StatusErrorDetailSchema, type KnownErrorDetail, type StatusErrorDetail } from "@vestibule/proto/error/v1/error";
import { currentRequestId, runWithContext } from "@vestibule/shared/context";

export interface RefreshRequest {
  readonly projectId: string;
  readonly refreshToken: string;
  /** End-user IP ("" when unknown). */
  readonly ip: string;
}

export interface RefreshBatcherOptions {
  /** A batch is sent as soon as this many refreshes wait. Default 64. */
  readonly maxBatch?: number;
  /**
   * Batches on the way to the auth service at once; refreshes arriving meanwhile wait for the next batch (so batches
   * grow with the load instead of the number of calls). Default 2.
   */
  readonly maxInFlight?: number;
}

interface Waiting {
  readonly request: RefreshRequest;
  readonly requestId: string | undefined;
  resolve(value: RefreshSessionResponse): void;
  reject(reason: unknown): void;
}

type Sessions = Pick<Client<typeof SessionService>, "refreshSessions" | "refreshSession">;

/** How long to use single RefreshSession calls after the auth service said it has no RefreshSessions (older version). */
const SINGLE_CALLS_AFTER_UNIMPLEMENTED_MS = 60_000;

/**
 * Micro-batching of token refreshes (both refresh routes use it): concurrent refreshes travel to the auth service in
 * one RefreshSessions call instead of one RPC each, because the fixed cost of an RPC (≈0.5 ms of CPU on each side)
 * is larger than the refresh itself. A refresh waits at most until the end of the current event-loop turn
 * (setImmediate) or until `maxBatch` are waiting, so a lone refresh is not slowed noticeably; while `maxInFlight`
 * batches are under way, new refreshes gather for the next one.
 *
 * Each refresh resolves with its own RefreshSessionResponse or rejects with the ConnectError a single RefreshSession
 * call would have failed with (same code, message and KnownErrorDetail / StatusErrorDetail, so the gateway answers
 * REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED etc. exactly as before). A failure of the whole call (auth down, deadline)
 * rejects every refresh of the batch with that error.
 */
export class RefreshBatcher {
  private queue: Waiting[] = [];
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
    private readonly sessions: Sessions,
    options: RefreshBatcherOptions = {},
  ) {
    this.maxBatch = Math.max(1, options.maxBatch ?? 64);
    this.maxInFlight = Math.max(1, options.maxInFlight ?? 2);
  }

  refresh(request: RefreshRequest): Promise<RefreshSessionResponse> {
    return new Promise<RefreshSessionResponse>((resolve, reject) => {
      this.queue.push({ request, requestId: currentRequestId(), resolve, reject });
      if (this.queue.length >= this.maxBatch) this.flush();
      else if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(this.flushSoon);
      }
    });
  }

  /** Refreshes waiting for a batch (for tests and metrics). */
  get waiting(): number {
    return this.queue.length;
  }

  private flush(): void {
    while (this.queue.length > 0 && (this.inFlight < this.maxInFlight || this.queue.length >= this.maxBatch)) {
      const batch = this.queue.length <= this.maxBatch ? this.queue : this.queue.slice(0, this.maxBatch);
      this.queue = this.queue.length <= this.maxBatch ? [] : this.queue.slice(this.maxBatch);
      this.inFlight++;
      // A batch of one keeps its request id; a larger one gets its own (it serves several HTTP requests).
      const requestId = batch.length === 1 && batch[0]!.requestId ? batch[0]!.requestId : `refresh-batch-${randomUUID()}`;
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

  private async send(batch: Waiting[]): Promise<void> {
    if (Date.now() < this.singleCallsUntil) return this.sendSingly(batch);
    let results;
    try {
      ({ results } = await this.sessions.refreshSessions({
        requests: batch.map((w) => ({ projectId: w.request.projectId, refreshToken: w.request.refreshToken, client: { ip: w.request.ip } })),
      }));
    } catch (err) {
      if (err instanceof ConnectError && err.code === Code.Unimplemented) {
        this.singleCallsUntil = Date.now() + SINGLE_CALLS_AFTER_UNIMPLEMENTED_MS;
        return this.sendSingly(batch);
      }
      for (const w of batch) w.reject(err);
      return;
    }
    if (results.length !== batch.length) {
      const err = withService(new ConnectError(`RefreshSessions answered ${results.length} results for ${batch.length} requests`, Code.Internal));
      for (const w of batch) w.reject(err);
      return;
    }
    batch.forEach((w, i) => {
      const { outcome } = results[i]!;
      if (outcome.case === "ok") w.resolve(outcome.value);
      else w.reject(itemError(outcome.value));
    });
  }

  /** An auth service without RefreshSessions (rolling upgrade): one RefreshSession per refresh, as before. */
  private async sendSingly(batch: Waiting[]): Promise<void> {
    await Promise.all(
      batch.map((w) =>
        runWithContext({ requestId: w.requestId ?? randomUUID() }, () =>
          this.sessions.refreshSession({ projectId: w.request.projectId, refreshToken: w.request.refreshToken, client: { ip: w.request.ip } }),
        ).then(w.resolve, w.reject),
      ),
    );
  }
}

/** The ConnectError a single RefreshSession call would have failed with. */
export function itemError(e: RefreshSessionError | undefined): ConnectError {
  if (!e) return withService(new ConnectError("RefreshSessions answered an empty result", Code.Internal));
  const details: { desc: typeof KnownErrorDetailSchema | typeof StatusErrorDetailSchema; value: KnownErrorDetail | StatusErrorDetail }[] = [];
  if (e.knownError) details.push({ desc: KnownErrorDetailSchema, value: e.knownError });
  if (e.statusError) details.push({ desc: StatusErrorDetailSchema, value: e.statusError });
  const code = e.code in Code ? (e.code as Code) : Code.Unknown;
  return withService(new ConnectError(e.message, code, undefined, details));
}

/** Tags the error with the service, like the gateway's RPC clients do (a 503 text names it). */
function withService(err: ConnectError): ConnectError {
  return Object.assign(err, { service: "auth" });
}

