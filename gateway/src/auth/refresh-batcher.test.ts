import { describe, expect, it } from "vitest";
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import {
  RefreshSessionResponseSchema,
  type RefreshSessionRequest,
  type RefreshSessionResponse,
  type RefreshSessionResult,
  type RefreshSessionsRequest,
} from "@vestibule/proto/auth/v1/session_service";
import { KnownErrorDetailSchema, StatusErrorDetailSchema } from "@vestibule/proto/error/v1/error";
import { KnownError, StatusError, fromConnectError, knownError } from "@vestibule/shared/errors";
import { currentRequestId, runWithContext } from "@vestibule/shared/context";
import { RefreshBatcher } from "./refresh-batcher.ts";

type Answer = (r: RefreshSessionRequest) => RefreshSessionResult["outcome"];

const okFor = (r: RefreshSessionRequest): RefreshSessionResult["outcome"] => ({
  case: "ok",
  value: create(RefreshSessionResponseSchema, { accessToken: `at-${r.refreshToken}`, sessionId: `s-${r.refreshToken}`, userId: "u" }),
});

const refreshTokenNotFound = (): RefreshSessionResult["outcome"] => {
  const e = knownError("REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED");
  return {
    case: "error",
    value: {
      $typeName: "vestibule.auth.v1.RefreshSessionError",
      code: Code.Unauthenticated,
      message: e.message,
      knownError: create(KnownErrorDetailSchema, { code: e.code, message: e.message }),
    },
  };
};

/** A fake SessionService client that records the batches it gets and answers them with `answer`. */
function fakeSessions(answer: Answer = okFor, opts: { hold?: boolean; fail?: unknown } = {}) {
  const batches: { tokens: string[]; requestId: string | undefined }[] = [];
  const singles: string[] = [];
  const held: (() => void)[] = [];
  const client = {
    async refreshSessions(req: { requests: RefreshSessionRequest[] } | RefreshSessionsRequest) {
      batches.push({ tokens: req.requests.map((r) => r.refreshToken), requestId: currentRequestId() });
      if (opts.hold) await new Promise<void>((r) => held.push(r));
      if (opts.fail) throw opts.fail;
      return { results: req.requests.map((r) => ({ outcome: answer(r as RefreshSessionRequest) })) };
    },
    async refreshSession(req: RefreshSessionRequest) {
      singles.push(req.refreshToken);
      const outcome = answer(req);
      if (outcome.case === "ok") return outcome.value;
      throw new ConnectError("single failed", Code.Unauthenticated);
    },
  };
  return { client: client as unknown as ConstructorParameters<typeof RefreshBatcher>[0], batches, singles, held };
}

const req = (token: string, projectId = "p") => ({ projectId, refreshToken: token, ip: "8.8.8.8" });

describe("RefreshBatcher", () => {
  it("sends a lone refresh at the end of the event-loop turn, as a batch of one with its own request id", async () => {
    const f = fakeSessions();
    const batcher = new RefreshBatcher(f.client);
    const res = await runWithContext({ requestId: "req-1" }, () => batcher.refresh(req("a")));
    expect(res.accessToken).toBe("at-a");
    expect(f.batches).toEqual([{ tokens: ["a"], requestId: "req-1" }]);
  });

  it("collects concurrent refreshes into one call and gives each caller its own result, in order", async () => {
    const f = fakeSessions((r) => (r.refreshToken.startsWith("bad") ? refreshTokenNotFound() : okFor(r)));
    const batcher = new RefreshBatcher(f.client);
    const results = await Promise.allSettled(["a", "bad1", "b", "bad2", "c"].map((t) => batcher.refresh(req(t))));
    expect(f.batches.map((b) => b.tokens)).toEqual([["a", "bad1", "b", "bad2", "c"]]);
    expect(f.batches[0]!.requestId).toMatch(/^refresh-batch-/);
    expect(results.map((r) => (r.status === "fulfilled" ? (r.value as RefreshSessionResponse).accessToken : "error"))).toEqual(["at-a", "error", "at-b", "error", "at-c"]);
  });

  it("maps an item's error to the ConnectError a single call would have failed with (known error, status error, code)", async () => {
    const f = fakeSessions((r) => {
      if (r.refreshToken === "known") return refreshTokenNotFound();
      if (r.refreshToken === "status") {
        return {
          case: "error",
          value: {
            $typeName: "vestibule.auth.v1.RefreshSessionError",
            code: Code.ResourceExhausted,
            message: "slow down",
            statusError: create(StatusErrorDetailSchema, { httpStatus: 429, message: "slow down", retryAfterSeconds: 3 }),
          },
        };
      }
      return { case: "error", value: { $typeName: "vestibule.auth.v1.RefreshSessionError", code: Code.Unavailable, message: "identity is down" } };
    });
    const batcher = new RefreshBatcher(f.client);
    const [known, status, plain] = await Promise.all(
      ["known", "status", "plain"].map((t) => batcher.refresh(req(t)).then(() => undefined, (e: unknown) => e)),
    );
    const k = fromConnectError(known);
    expect(k).toBeInstanceOf(KnownError);
    expect(k).toMatchObject({ code: "REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED", httpStatus: 401, message: knownError("REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED").message });
    expect(known).toMatchObject({ code: Code.Unauthenticated, service: "auth" });
    const s = fromConnectError(status);
    expect(s).toBeInstanceOf(StatusError);
    expect(s).toMatchObject({ httpStatus: 429, message: "slow down", retryAfterSeconds: 3 });
    expect(plain).toBeInstanceOf(ConnectError);
    expect(plain).toMatchObject({ code: Code.Unavailable, rawMessage: "identity is down", service: "auth" });
    expect(fromConnectError(plain)).toBeUndefined();
  });

  it("a failed call rejects every refresh of its batch with that error", async () => {
    const down = Object.assign(new ConnectError("connect ECONNREFUSED", Code.Unavailable), { service: "auth" });
    const f = fakeSessions(okFor, { fail: down });
    const batcher = new RefreshBatcher(f.client);
    const results = await Promise.allSettled(["a", "b"].map((t) => batcher.refresh(req(t))));
    expect(results.map((r) => (r.status === "rejected" ? r.reason : undefined))).toEqual([down, down]);
  });

  it("sends at once when maxBatch refreshes wait, and splits larger queues", async () => {
    const f = fakeSessions();
    const batcher = new RefreshBatcher(f.client, { maxBatch: 3, maxInFlight: 1 });
    const all = ["a", "b", "c", "d", "e", "f", "g"].map((t) => batcher.refresh(req(t)));
    // The first three went out synchronously, before the end of the turn.
    expect(f.batches.map((b) => b.tokens)).toEqual([["a", "b", "c"], ["d", "e", "f"]]);
    expect(batcher.waiting).toBe(1);
    expect((await Promise.all(all)).map((r) => r.accessToken)).toEqual(["at-a", "at-b", "at-c", "at-d", "at-e", "at-f", "at-g"]);
    expect(f.batches.map((b) => b.tokens)).toEqual([["a", "b", "c"], ["d", "e", "f"], ["g"]]);
  });

  it("while maxInFlight batches are under way, new refreshes gather for the next batch", async () => {
    const f = fakeSessions(okFor, { hold: true });
    const batcher = new RefreshBatcher(f.client, { maxInFlight: 1 });
    const first = batcher.refresh(req("a"));
    await new Promise((r) => setImmediate(r));
    expect(f.batches.map((b) => b.tokens)).toEqual([["a"]]);
    const later = ["b", "c", "d"].map((t) => batcher.refresh(req(t)));
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    expect(f.batches).toHaveLength(1);
    expect(batcher.waiting).toBe(3);
    f.held.shift()!();
    expect((await first).accessToken).toBe("at-a");
    await new Promise((r) => setImmediate(r));
    expect(f.batches.map((b) => b.tokens)).toEqual([["a"], ["b", "c", "d"]]);
    f.held.shift()!();
    expect((await Promise.all(later)).map((r) => r.accessToken)).toEqual(["at-b", "at-c", "at-d"]);
  });

  it("falls back to single RefreshSession calls when the auth service does not know RefreshSessions yet", async () => {
    const f = fakeSessions(okFor, { fail: new ConnectError("not implemented", Code.Unimplemented) });
    const batcher = new RefreshBatcher(f.client);
    const results = await Promise.all(["a", "b"].map((t) => batcher.refresh(req(t))));
    expect(results.map((r) => r.accessToken)).toEqual(["at-a", "at-b"]);
    expect(f.singles).toEqual(["a", "b"]);
    // For a while, refreshes go singly without trying the batch call first.
    await batcher.refresh(req("c"));
    expect(f.batches).toHaveLength(1);
    expect(f.singles).toEqual(["a", "b", "c"]);
  });

  it("a malformed answer (wrong number of results) fails the batch with Internal", async () => {
    const f = fakeSessions();
    const client = { ...f.client, refreshSessions: async () => ({ results: [] }) } as unknown as ConstructorParameters<typeof RefreshBatcher>[0];
    const batcher = new RefreshBatcher(client);
    await expect(batcher.refresh(req("a"))).rejects.toMatchObject({ code: Code.Internal, service: "auth" });
  });
});
