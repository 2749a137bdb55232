/**
 * Passkeys end to end (issue 15) in Chromium with the DevTools WebAuthn virtual authenticator (CTAP2, internal
 * transport, resident keys, user verification) against a whole platform: the hosted pages (sign up with a password, add
 * a passkey in account settings, sign out, sign in with the passkey alone, remove it), and the published
 * `@stackframe/js` (2.8.41 and the current release) `registerPasskey()` / `signInWithPasskey()` in a page of the same
 * origin. Pages are opened on `localhost` (a WebAuthn relying party cannot be an IP address).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { CDPSession, Page } from "playwright-core";
import { startTestPlatform, type TestPlatform } from "../../../deploy/src/test-platform.ts";
import { launchBrowser, screenshotBothThemes, type Browser } from "../src/browser.ts";
import { run, PASSWORD } from "../src/accounts.ts";
import { bundleStackframeJs } from "../src/stackframe-bundle.ts";
import { FRONTEND_APPS, type RuntimeConfig } from "@vestibule/build-config/apps";
import { startFrontendsServer, type FrontendsServer } from "@vestibule/build-config/static-server";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

vi.setConfig({ testTimeout: 150_000 });

let tp: TestPlatform;
let browser: Browser;
let origin: string;
const servers: Server[] = [];
const frontendServers: FrontendsServer[] = [];
/** Users the SDK tests leave with one passkey each (the dashboard test looks at them). */
const withPasskey: string[] = [];

/**
 * A page that loads the SDK bundle, served by a real local server (a page the browser gets from an intercepted route
 * has no address space, and Chromium then blocks its calls to the local gateway). Returns its origin on localhost.
 */
async function serveSdkPage(bundle: string): Promise<string> {
  const server = createServer((req, res) => {
    if ((req.url ?? "").endsWith(".js")) {
      res.writeHead(200, { "content-type": "text/javascript" }).end(bundle);
      return;
    }
    res.writeHead(200, { "content-type": "text/html" }).end(`<!doctype html><html><body><h1>${req.url}</h1><script src="/sdk-test/sdk.js"></script></body></html>`);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  servers.push(server);
  return `http://localhost:${(server.address() as AddressInfo).port}`;
}

async function api<T>(path: string, init: { method?: string; body?: unknown; type?: "server" | "admin" } = {}): Promise<T> {
  const demo = tp.projects.demo;
  const res = await fetch(`${tp.gatewayUrl}/api/v1${path}`, {
    method: init.method ?? "GET",
    headers: {
      "x-stack-project-id": demo.project_id,
      "x-stack-access-type": init.type ?? "server",
      "x-stack-secret-server-key": demo.secret_server_key,
      "x-stack-super-secret-admin-key": demo.super_secret_admin_key,
      ...(init.body ? { "content-type": "application/json" } : {}),
    },
    body: init.body ? JSON.stringify(init.body) : undefined,
  });
  if (!res.ok) throw new Error(`${path} answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as T;
}

async function userByEmail(email: string): Promise<Record<string, any>> {
  const r = await api<{ items: Record<string, any>[] }>(`/users?query=${encodeURIComponent(email)}&limit=5`);
  const u = r.items.find((x) => x.primary_email === email);
  if (!u) throw new Error(`no user ${email}`);
  return u;
}

/** A virtual platform authenticator on the page (CDP WebAuthn domain): it answers create() and get() by itself. */
async function virtualAuthenticator(page: Page): Promise<{ cdp: CDPSession; id: string; credentials(): Promise<{ isResidentCredential: boolean; signCount: number }[]> }> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: {
      protocol: "ctap2",
      transport: "internal",
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return {
    cdp,
    id: authenticatorId,
    credentials: async () => (await cdp.send("WebAuthn.getCredentials", { authenticatorId })).credentials,
  };
}

async function signUp(page: Page, email: string): Promise<void> {
  await page.goto(`${origin}/handler/sign-up`);
  await page.getByLabel("E-mail", { exact: true }).fill(email);
  await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
  await page.getByLabel("Repeat password").fill(PASSWORD);
  await page.getByRole("button", { name: "Sign up" }).click();
  await page.waitForURL(/\/handler\/account-settings/);
}

beforeAll(async () => {
  tp = await startTestPlatform({ platform: { frontends: true } });
  origin = `http://localhost:${new URL(tp.platform.frontendsUrl!).port}`;
  await api("/internal/projects/current", { method: "PATCH", type: "admin", body: { config: { passkey_enabled: true, allow_localhost: true } } });
  browser = await launchBrowser();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  for (const s of servers) s.close();
  for (const s of frontendServers) await s.close().catch(() => undefined);
  await tp?.stop();
});

describe("passkeys in the hosted pages", () => {
  it("sign up with a password, add a passkey in account settings, sign out, sign in with the passkey alone, remove it", async () => {
    const email = `passkey-${run}@example.com`;
    const page = await browser.newPage();
    const authenticator = await virtualAuthenticator(page);
    await signUp(page, email);

    await page.goto(`${origin}/handler/account-settings?tab=passkeys`);
    await page.getByRole("heading", { name: "Passkeys" }).waitFor();
    await page.getByText("No passkeys yet.").waitFor();
    await page.getByRole("button", { name: "Add a passkey" }).click();
    await page.getByText("Passkey added. You can now sign in with it.").waitFor();
    await page.getByRole("cell", { name: "Passkey 1", exact: true }).waitFor();
    const made = await authenticator.credentials();
    expect(made).toHaveLength(1);
    expect(made[0]!.isResidentCredential).toBe(true);
    expect((await userByEmail(email)).passkey_auth_enabled).toBe(true);
    await screenshotBothThemes(page, "handler-account-passkeys", { phone: true });

    await page.goto(`${origin}/handler/sign-out`);
    await page.waitForURL(/\/handler\/sign-in/);
    await page.getByRole("button", { name: "Sign in with a passkey" }).click();
    await page.waitForURL((u) => !u.pathname.includes("/handler/sign-in"));
    expect((await authenticator.credentials())[0]!.signCount).toBeGreaterThan(0);

    await page.goto(`${origin}/handler/account-settings?tab=passkeys`);
    await page.getByRole("heading", { name: "Account settings" }).waitFor();
    await expect.poll(async () => (await page.getByRole("row").filter({ hasText: "Passkey 1" }).textContent()) ?? "").not.toContain("Never");
    await page.getByRole("button", { name: "Rename Passkey 1" }).click();
    await page.getByLabel("New name for Passkey 1").fill("This laptop");
    await page.getByRole("button", { name: "Save" }).click();
    await page.getByRole("cell", { name: "This laptop", exact: true }).waitFor();
    await page.getByRole("button", { name: "Remove This laptop" }).click();
    await page.getByText("No passkeys yet.").waitFor();
    expect((await userByEmail(email)).passkey_auth_enabled).toBe(false);

    // The passkey is gone: signing in with it fails with the server's reason on the sign-in page.
    await page.goto(`${origin}/handler/sign-out`);
    await page.waitForURL(/\/handler\/sign-in/);
    await page.getByRole("button", { name: "Sign in with a passkey" }).click();
    await page.getByText("This passkey is not registered with this project").waitFor();
    await page.close();
  });
});

describe("published @stackframe/js in the browser", () => {
  for (const version of ["2.8.41", "latest"] as const) {
    it(`@stackframe/js ${version}: registerPasskey() then signInWithPasskey() against the gateway`, async () => {
      const sdkOrigin = await serveSdkPage(await bundleStackframeJs(version));
      const email = `sdk-${version.replace(/\W/g, "")}-${run}@example.com`;
      const page = await browser.newPage();
      const authenticator = await virtualAuthenticator(page);
      await page.goto(`${sdkOrigin}/sdk-test/start`);
      await page.waitForFunction("typeof window.StackClientApp === 'function'");
      const demo = tp.projects.demo;
      // The gateway's public URL, as the hosted pages get it.
      const { apiUrl } = (await (await fetch(`${origin}/config.json`)).json()) as { apiUrl: string };
      const settings = { projectId: demo.project_id, publishableClientKey: demo.publishable_client_key, baseUrl: apiUrl };
      const registered = await page.evaluate(
        async ({ s, email, password }) => {
          const w = window as any;
          const app = new w.StackClientApp({
            ...s,
            tokenStore: "cookie",
            redirectMethod: "window",
            urls: { afterSignIn: "/sdk-test/after-sign-in", afterSignUp: "/sdk-test/after-sign-up", signIn: "/sdk-test/sign-in" },
          });
          const up = await app.signUpWithCredential({ email, password, noRedirect: true, verificationCallbackUrl: `${location.origin}/sdk-test/verify` });
          if (up.status !== "ok") return `sign-up: ${up.error?.message}`;
          const user = await app.getUser({ or: "throw" });
          const r = await user.registerPasskey();
          if (r.status !== "ok") return `register: ${r.error?.constructor?.name} ${r.error?.message}`;
          const again = await app.getUser({ or: "throw" });
          return `ok ${again.passkeyAuthEnabled}`;
        },
        { s: settings, email, password: PASSWORD },
      );
      expect(registered).toBe("ok true");
      // Signing out navigates (the evaluation ends with the page).
      await Promise.all([
        page.waitForURL(/\/sdk-test\/signed-out/),
        page
          .evaluate(async (s) => {
            const w = window as any;
            const app = new w.StackClientApp({ ...s, tokenStore: "cookie", redirectMethod: "window" });
            const user = await app.getUser({ or: "throw" });
            await user.signOut({ redirectUrl: "/sdk-test/signed-out" });
          }, settings)
          .catch(() => undefined),
      ]);
      await page.waitForFunction("typeof window.StackClientApp === 'function'");
      expect(await authenticator.credentials()).toHaveLength(1);

      // signInWithPasskey redirects to afterSignIn when it succeeds; an error comes back as a result.
      const outcome = await Promise.race([
        page.waitForURL(/\/sdk-test\/after-sign-in/).then(() => "redirected"),
        page.evaluate(async (s) => {
          const w = window as any;
          const app = new w.StackClientApp({ ...s, tokenStore: "cookie", redirectMethod: "window", urls: { afterSignIn: "/sdk-test/after-sign-in" } });
          if (await app.getUser()) return "still signed in";
          const r = await app.signInWithPasskey();
          return r.status === "ok" ? "ok" : `error ${r.error?.constructor?.name} ${r.error?.message}`;
        }, settings).catch(() => "redirected"),
      ]);
      expect(outcome === "redirected" || outcome === "ok").toBe(true);
      await page.waitForURL(/\/sdk-test\/after-sign-in/);
      expect((await authenticator.credentials())[0]!.signCount).toBeGreaterThan(0);
      await page.waitForFunction("typeof window.StackClientApp === 'function'");
      const who = await page.evaluate(async (s) => {
        const w = window as any;
        const app = new w.StackClientApp({ ...s, tokenStore: "cookie", redirectMethod: "window" });
        const u = await app.getUser();
        return u?.primaryEmail ?? null;
      }, settings);
      expect(who).toBe(email);
      withPasskey.push(email);
      await page.close();
    });
  }
});

describe("dashboard (areas standalone with the demo project's admin key)", () => {
  it("the auth area toggles passkeys; the user detail shows the user's passkey count and last use", async () => {
    const demo = tp.projects.demo;
    const config = (await (await fetch(`${origin}/config.json`)).json()) as RuntimeConfig;
    const dev = { apiUrl: tp.gatewayUrl, projectId: demo.project_id, superSecretAdminKey: demo.super_secret_admin_key, secretServerKey: demo.secret_server_key, frontendsOrigin: origin, mode: "development" };
    const documents = Object.fromEntries(FRONTEND_APPS.filter((a) => a.area).map((a) => [`${a.mountPath}dev-config.json`, dev]));
    const standalone = await startFrontendsServer({ port: 0, host: "127.0.0.1", config, documents });
    frontendServers.push(standalone);
    const page = await browser.newPage();

    await page.goto(`${standalone.url}/remotes/dashboard-auth/`);
    const toggle = page.getByRole("switch", { name: /^Passkeys/ });
    await toggle.waitFor();
    expect(await toggle.isChecked()).toBe(true);
    const passkeyEnabled = async () => (await api<{ config: { passkey_enabled: boolean } }>("/internal/projects/current", { type: "admin" })).config.passkey_enabled;
    await toggle.click();
    await expect.poll(passkeyEnabled).toBe(false);
    await expect.poll(() => toggle.isChecked()).toBe(false);
    await toggle.click();
    await expect.poll(passkeyEnabled).toBe(true);

    expect(withPasskey.length).toBeGreaterThan(0);
    const email = withPasskey[0]!;
    await page.goto(`${standalone.url}/remotes/dashboard-users/`);
    await page.getByLabel("Search users").fill(email);
    await page.getByRole("link", { name: email }).click();
    const count = page.getByTestId("passkey-count");
    await count.waitFor();
    expect(await count.textContent()).toMatch(/^1 passkey \(last used /);
    await screenshotBothThemes(page, "standalone-user-detail-passkeys");
    await page.close();
  });
});
