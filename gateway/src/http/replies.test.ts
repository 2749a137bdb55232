import Fastify from "fastify";
import { Code, ConnectError } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { knownError, statusError, toConnectError } from "@vestibule/shared/errors";
import { handleError } from "./replies.ts";

/** A bare app whose one route throws `err`, answered by the gateway's error handler. */
async function answerTo(err: unknown) {
  const app = Fastify({ logger: false });
  app.setErrorHandler((e, req, reply) => handleError(e, req, reply, "production"));
  app.get("/x", async () => {
    throw err;
  });
  const res = await app.inject({ method: "GET", url: "/x" });
  await app.close();
  return { status: res.statusCode, text: res.body, type: String(res.headers["content-type"]), retryAfter: res.headers["retry-after"] };
}

describe("handleError (issue 18: no raw RPC error text on 4xx)", () => {
  it("answers a ConnectError without a known or status error detail with a generic text for its status", async () => {
    const leaky = new ConnectError('relation "auth.sessions" does not exist at 10.0.3.7:5432', Code.NotFound);
    const res = await answerTo(leaky);
    expect(res.status).toBe(404);
    expect(res.text).toBe("Not found.");
    expect(res.text).not.toContain("10.0.3.7");
    expect((await answerTo(new ConnectError("protobuf: cannot decode field 7 of vestibule.x.v1.Y", Code.InvalidArgument))).text).toBe("Bad request.");
    expect((await answerTo(new ConnectError("token bound to another callee", Code.PermissionDenied))).text).toBe("Forbidden.");
    expect((await answerTo(new ConnectError("secret mismatch", Code.Unauthenticated))).text).toBe("Unauthorized.");
  });

  it("keeps a service's deliberate status error text and known errors", async () => {
    const deliberate = await answerTo(toConnectError(statusError(400, "User already has a password set.")));
    expect(deliberate).toMatchObject({ status: 400, text: "User already has a password set." });
    const known = await answerTo(toConnectError(knownError("USER_NOT_FOUND")));
    expect(known.status).toBe(404);
    expect(JSON.parse(known.text).code).toBe("USER_NOT_FOUND");
  });
});

describe("handleError (issue 18: every 429 says when to retry)", () => {
  it("sends the service's Retry-After, or 1 s when the refusal named no wait", async () => {
    expect(await answerTo(toConnectError(statusError(429, "Too many attempts. Please wait 864 seconds and try again.", { retryAfterSeconds: 864 })))).toMatchObject({
      status: 429,
      retryAfter: "864",
    });
    expect(await answerTo(toConnectError(statusError(429, "Slow down.")))).toMatchObject({ status: 429, text: "Slow down.", retryAfter: "1" });
    expect(await answerTo(new ConnectError("quota", Code.ResourceExhausted))).toMatchObject({ status: 429, text: "Too many requests.", retryAfter: "1" });
    expect((await answerTo(new ConnectError("x", Code.NotFound))).retryAfter).toBeUndefined();
  });
});
