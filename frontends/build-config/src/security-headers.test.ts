import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FRONTEND_APPS, type RuntimeConfig } from "./apps.ts";
import { contentSecurityPolicy, inlineScriptHashes } from "./security-headers.ts";
import { startFrontendsServer, type FrontendsServer } from "./static-server.ts";

const HTML = `<!doctype html><html><head><script>document.documentElement.dataset.theme="dark"</script><style>body{margin:0}</style></head>
<body><div id="root"></div><script defer src="/handler/main.0123abcd.js"></script></body></html>`;

describe("CSP of the pages (issue 18)", () => {
  it("hashes inline scripts only, never allows inline or eval'd script, and names the gateway for data requests", () => {
    // sha256 of the inline script's text, base64 (as `printf %s "<text>" | openssl dgst -sha256 -binary | base64`).
    expect(inlineScriptHashes(HTML)).toEqual(["'sha256-zTSXYZ/r74pY7Te+wyYtgDRsO/hpzo1oFZH8wmJQwSA='"]);
    const csp = contentSecurityPolicy({ html: HTML, apiUrl: "https://api.example.com/ignored/path", production: true });
    expect(csp).toBe(
      "default-src 'self'; script-src 'self' 'sha256-zTSXYZ/r74pY7Te+wyYtgDRsO/hpzo1oFZH8wmJQwSA='; style-src 'self' 'unsafe-inline'; " +
        "img-src 'self' data: blob: https:; font-src 'self' data:; connect-src 'self' https://api.example.com; object-src 'none'; " +
        "base-uri 'self'; frame-ancestors 'none'",
    );
    const scriptSrc = csp.split("; ").find((d) => d.startsWith("script-src "))!;
    expect(scriptSrc).not.toMatch(/unsafe-inline|unsafe-eval|\*/);
    expect(contentSecurityPolicy({ html: HTML, apiUrl: "javascript:alert(1)" })).toContain("connect-src 'self';");
  });
});

describe("frontends server headers", () => {
  let dir: string;
  let server: FrontendsServer;
  const handler = FRONTEND_APPS.find((a) => a.dir === "handler")!;
  const config = { apiUrl: "http://127.0.0.1:8102", mode: "production" } as unknown as RuntimeConfig;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "frontends-headers-"));
    mkdirSync(join(dir, handler.dir, "dist"), { recursive: true });
    writeFileSync(join(dir, handler.dir, "dist", "index.html"), HTML);
    writeFileSync(join(dir, handler.dir, "dist", "main.0123abcd.js"), "console.log(1)");
    server = await startFrontendsServer({ port: 0, host: "127.0.0.1", apps: [handler], frontendsDir: dir, config });
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("pages get the CSP, framing refused, nosniff, a referrer policy and HSTS in production; other files the common ones", async () => {
    const page = await fetch(`${server.url}/handler/sign-in`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toBe(contentSecurityPolicy({ html: HTML, apiUrl: config.apiUrl, production: true }));
    expect(page.headers.get("x-frame-options")).toBe("DENY");
    expect(page.headers.get("x-content-type-options")).toBe("nosniff");
    expect(page.headers.get("referrer-policy")).toBe("strict-origin-when-cross-origin");
    expect(page.headers.get("strict-transport-security")).toBe("max-age=31536000; includeSubDomains");
    expect(page.headers.get("set-cookie")).toBeNull();

    const script = await fetch(`${server.url}/handler/main.0123abcd.js`);
    expect(script.headers.get("x-content-type-options")).toBe("nosniff");
    expect(script.headers.get("content-security-policy")).toBeNull();
    const json = await fetch(`${server.url}/config.json`);
    expect(json.headers.get("x-content-type-options")).toBe("nosniff");
    expect(json.headers.get("strict-transport-security")).toBe("max-age=31536000; includeSubDomains");
  });

  it("no HSTS in development", async () => {
    server.setConfig({ ...config, mode: "development" });
    const page = await fetch(`${server.url}/handler/`);
    expect(page.headers.get("strict-transport-security")).toBeNull();
    expect(page.headers.get("content-security-policy")).toContain("img-src 'self' data: blob: https: http:");
    server.setConfig(config);
  });
});
