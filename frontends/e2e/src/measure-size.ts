/**
 * Initial JavaScript of a page, as a browser downloads it: loads the page in Chromium from the built frontends
 * (`npm run build:frontends` first) and sums the gzip size of every script fetched until the network is idle.
 *   npm run frontends:size        → sign-in page (/handler/sign-in) and dashboard shell (/auth/sign-in)
 */
import { gzipSync } from "node:zlib";
import { startFrontendsServer } from "@vestibule/build-config/static-server";
import { launchBrowser } from "./browser.ts";

const CONFIG = { apiUrl: "http://127.0.0.1:1", internalProjectId: "internal", internalPublishableClientKey: "pk", handlerProjectId: "p", handlerPublishableClientKey: "pk", mode: "development" as const };

export async function measure(paths: string[]): Promise<Record<string, { files: number; raw: number; gzip: number }>> {
  const server = await startFrontendsServer({ port: 0, host: "127.0.0.1", config: CONFIG });
  const browser = await launchBrowser();
  const out: Record<string, { files: number; raw: number; gzip: number }> = {};
  try {
    for (const path of paths) {
      const page = await browser.newPage();
      const bodies: Promise<Buffer | null>[] = [];
      page.on("response", (r) => {
        if (r.request().resourceType() === "script") bodies.push(r.body().catch(() => null));
      });
      await page.goto(server.url + path, { waitUntil: "networkidle" });
      const all = (await Promise.all(bodies)).filter((b): b is Buffer => b !== null);
      out[path] = { files: all.length, raw: all.reduce((s, b) => s + b.length, 0), gzip: all.reduce((s, b) => s + gzipSync(b, { level: 9 }).length, 0) };
      await page.close();
    }
  } finally {
    await browser.close();
    await server.close();
  }
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const result = await measure(["/handler/sign-in", "/auth/sign-in", "/"]);
  for (const [path, r] of Object.entries(result)) console.log(`${path}: ${r.files} scripts, ${(r.raw / 1024).toFixed(1)} KB raw, ${(r.gzip / 1024).toFixed(1)} KB gzip`);
}
