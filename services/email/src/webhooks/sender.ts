import http from "node:http";
import https from "node:https";
import type { BlockList } from "node:net";
import { EgressRefusedError, resolvePublicHost } from "@vestibule/shared/egress";

export const RESPONSE_EXCERPT_BYTES = 1024;

export type PostOutcome =
  | { readonly status: number; readonly excerpt: string; readonly latencyMs: number }
  | { readonly error: string; readonly latencyMs: number };

/**
 * POSTs one webhook. The host is resolved once and every address must be public (@vestibule/shared/egress, with the
 * operator's VESTIBULE_EGRESS_ALLOW); the connection goes to that checked address. Redirects are not followed (an
 * answer is an answer), the whole exchange is bounded by `timeoutMs`, and only the first 1 KB of the body is read.
 */
export async function postWebhook(url: string, body: string, headers: Record<string, string>, opts: { timeoutMs: number; allow: BlockList }): Promise<PostOutcome> {
  const started = performance.now();
  const latency = () => Math.round(performance.now() - started);
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return { error: "The endpoint URL is not valid.", latencyMs: 0 };
  }
  if (target.protocol !== "http:" && target.protocol !== "https:") return { error: "The endpoint URL must use http or https.", latencyMs: 0 };
  let resolved;
  try {
    resolved = await resolvePublicHost(target.hostname, opts.allow);
  } catch (err) {
    if (err instanceof EgressRefusedError) return { error: `Refused: ${err.message}.`, latencyMs: latency() };
    return { error: `DNS lookup failed: ${(err as Error).message}`, latencyMs: latency() };
  }
  const lib = target.protocol === "https:" ? https : http;
  return await new Promise<PostOutcome>((resolve) => {
    let settled = false;
    const finish = (outcome: PostOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const req = lib.request(
      target,
      {
        method: "POST",
        headers: { "content-type": "application/json", "user-agent": "Vestibule-Webhooks/1", ...headers, "content-length": Buffer.byteLength(body) },
        agent: false,
        lookup: ((_host: string, options: { all?: boolean }, cb: (...args: unknown[]) => void) => {
          if (options?.all) cb(null, [{ address: resolved.address, family: resolved.family }]);
          else cb(null, resolved.address, resolved.family);
        }) as never,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const done = () => {
          finish({ status: res.statusCode ?? 0, excerpt: Buffer.concat(chunks).subarray(0, RESPONSE_EXCERPT_BYTES).toString("utf8"), latencyMs: latency() });
          res.destroy();
        };
        res.on("data", (chunk: Buffer) => {
          if (size < RESPONSE_EXCERPT_BYTES) chunks.push(chunk);
          size += chunk.length;
          if (size >= RESPONSE_EXCERPT_BYTES) done();
        });
        res.on("end", done);
        res.on("error", done);
      },
    );
    const timer = setTimeout(() => {
      finish({ error: `No answer within ${opts.timeoutMs} ms.`, latencyMs: latency() });
      req.destroy();
    }, opts.timeoutMs);
    req.on("error", (err) => finish({ error: `Request failed: ${err.message}`, latencyMs: latency() }));
    req.end(body);
  });
}
