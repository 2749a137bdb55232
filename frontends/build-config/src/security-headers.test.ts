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
        "img-src 'self' data: blob: https:; font-src 'self' data:; connect-src 'self' https://api.example.com; frame-src 'self'; " +
        "object-src 'none'; " +
        "base-uri 'self'; frame-ancestors 'none'",
    );
    const scriptSrc = csp.split("; ").find((d) => d.startsWith("script-src "))!;
    expect(scriptSrc).not.toMatch(/unsafe-inline|unsafe-eval|\*/);
    expect(contentSecurityPolicy({ html: HTML, apiUrl: "javascript:alert(1)" })).toContain("connect-src 'self';");
  });
});

describe("CSP sources of remotes and Stripe.js", () => {
  const directive = (csp: string, name: string) => csp.split("; ").find((d) => d.startsWith(`${name} `)) ?? "";

  it("lets remotes placed on other servers by the run-time manifest load, and only those", () => {
    const csp = contentSecurityPolicy({ html: "", remoteEntries: ["/handler/mf-manifest.json", "http://127.0.0.1:9123/users/mf-manifest.json"] });
    expect(directive(csp, "script-src")).toBe("script-src 'self' http://127.0.0.1:9123");
    expect(directive(csp, "connect-src")).toBe("connect-src 'self' http://127.0.0.1:9123");
  });

  it("lets a standalone area call the gateway its dev-config names", () => {
    const csp = contentSecurityPolicy({ html: "", apiUrl: "http://localhost:8102", otherApiUrls: ["http://127.0.0.1:8102/", "http://localhost:8102"] });
    expect(directive(csp, "connect-src")).toBe("connect-src 'self' http://localhost:8102 http://127.0.0.1:8102");
  });

  it("allows Stripe.js: the real one with Stripe's API and frames, the local stand-in with its own server", () => {
    const real = contentSecurityPolicy({ html: "", stripeJsUrl: "https://js.stripe.com/v3" });
    expect(directive(real, "script-src")).toBe("script-src 'self' https://js.stripe.com");
    expect(directive(real, "connect-src")).toBe("connect-src 'self' https://api.stripe.com");
    expect(directive(real, "frame-src")).toBe("frame-src 'self' https://js.stripe.com https://hooks.stripe.com");
    const local = contentSecurityPolicy({ html: "", stripeJsUrl: "http://localhost:8118/v3" });
    expect(directive(local, "script-src")).toBe("script-src 'self' http://localhost:8118");
    expect(directive(local, "connect-src")).toBe("connect-src 'self' http://localhost:8118");
    expect(contentSecurityPolicy({ html: "" })).toContain("frame-src 'self';");
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
