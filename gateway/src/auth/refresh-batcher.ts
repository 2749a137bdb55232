import type { Client } from "@connectrpc/connect";
import type { RefreshSessionResponse, SessionService } from "@vestibule/proto/auth/v1/session_service";
import { RpcBatcher, type RpcBatcherOptions } from "./rpc-batcher.ts";

export interface RefreshRequest {
  readonly projectId: string;
  readonly refreshToken: string;
  /** End-user IP ("" when unknown). */
  readonly ip: string;
}

export type RefreshBatcherOptions = RpcBatcherOptions;

type Sessions = Pick<Client<typeof SessionService>, "refreshSessions" | "refreshSession">;

/**
 * Token refreshes (both refresh routes use it), batched into RefreshSessions calls (see RpcBatcher); an auth service
 * without RefreshSessions gets single RefreshSession calls.
 */
export class RefreshBatcher {
  private readonly batcher: RpcBatcher<RefreshRequest, RefreshSessionResponse>;

  constructor(sessions: Sessions, options: RefreshBatcherOptions = {}) {
    const toRpc = (r: RefreshRequest) => ({ projectId: r.projectId, refreshToken: r.refreshToken, client: { ip: r.ip } });
    this.batcher = new RpcBatcher<RefreshRequest, RefreshSessionResponse>(
      {
        service: "auth",
        name: "refresh-batch",
        sendBatch: async (requests) => (await sessions.refreshSessions({ requests: requests.map(toRpc) })).results.map((r) => r.outcome),
        sendOne: (request) => sessions.refreshSession(toRpc(request)),
      },
      options,
    );
  }

  refresh(request: RefreshRequest): Promise<RefreshSessionResponse> {
    return this.batcher.call(request);
  }

  /** Refreshes waiting for a batch (for tests and metrics). */
  get waiting(): number {
    return this.batcher.waiting;
  }
}
