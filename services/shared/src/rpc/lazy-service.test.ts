import { create } from "@bufbuild/protobuf";
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { Health } from "@vestibule/proto/grpc/health/v1/health";
import { PasskeyService, ListPasskeysRequestSchema, ListPasskeysResponseSchema } from "@vestibule/proto/auth/v1/passkey_service";
import { lazyService } from "./lazy-service.ts";

type Impl = ServiceImpl<typeof PasskeyService>;
const ctx = {} as HandlerContext;
const request = create(ListPasskeysRequestSchema, { projectId: "p", userId: "u" });

describe("lazyService", () => {
  it("loads the implementation at the first call, once for concurrent calls, and forwards requests and answers", async () => {
    let loads = 0;
    const seen: unknown[] = [];
    const svc = lazyService(PasskeyService, async () => {
      loads++;
      await new Promise((r) => setTimeout(r, 20));
      return {
        listPasskeys: async (req: unknown) => {
          seen.push(req);
          return create(ListPasskeysResponseSchema, {});
        },
      } as unknown as Impl;
    });
    expect(loads).toBe(0);
    const answers = await Promise.all([1, 2, 3].map(() => (svc.listPasskeys as (r: unknown, c: HandlerContext) => Promise<unknown>)(request, ctx)));
    expect(loads).toBe(1);
    expect(answers).toHaveLength(3);
    expect(seen).toEqual([request, request, request]);
    expect(Object.keys(svc).sort()).toEqual(PasskeyService.methods.map((m) => m.localName).sort());
  });

  it("does not keep a failed load: the next call tries again", async () => {
    let loads = 0;
    const svc = lazyService(PasskeyService, async () => {
      if (++loads === 1) throw new Error("module missing");
      return { listPasskeys: async () => create(ListPasskeysResponseSchema, {}) } as unknown as Impl;
    });
    const call = () => (svc.listPasskeys as (r: unknown, c: HandlerContext) => Promise<unknown>)(request, ctx);
    await expect(call()).rejects.toThrow("module missing");
    await expect(call()).resolves.toBeDefined();
    expect(loads).toBe(2);
  });

  it("refuses a service with a streaming method", () => {
    expect(() => lazyService(Health, async () => ({}) as ServiceImpl<typeof Health>)).toThrow(/Watch is not unary/);
  });
});
