/**
 * The development identity provider as `npm start` uses it: OpenID discovery, the login page, and the one-time
 * seeding of shared Google/GitHub/Microsoft/Spotify sign-in on projects without providers.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ProjectService } from "@vestibule/proto/identity/v1/project_service";
import { createServiceClient } from "@vestibule/shared/rpc";
import { startDevIdentityProvider, type DevIdentityProvider } from "../src/dev-idp/index.ts";
import { DEV_SHARED_PROVIDERS, seedDevProviders } from "../src/dev-idp/launch.ts";
import { startStack, type Stack } from "../../gateway/test/support.ts";

let idp: DevIdentityProvider;
let stack: Stack;
const dir = mkdtempSync(join(tmpdir(), "vestibule-dev-idp-"));

beforeAll(async () => {
  idp = await startDevIdentityProvider();
  stack = await startStack();
}, 60_000);
afterAll(async () => {
  await stack?.stop();
  await idp?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("development identity provider", () => {
  it("publishes OpenID discovery with PKCE S256 and the extra test scopes", async () => {
    const res = await fetch(`${idp.issuer}/.well-known/openid-configuration`);
    expect(res.status).toBe(200);
    const meta = (await res.json()) as Record<string, unknown>;
    expect(meta.issuer).toBe(idp.issuer);
    expect(meta.code_challenge_methods_supported).toContain("S256");
    expect(meta.scopes_supported).toEqual(expect.arrayContaining(["openid", "email", "profile", "offline_access", "repo"]));
    expect(JSON.parse(idp.sharedKeysEnv)).toEqual({ "*": { client_id: idp.clientId, client_secret: idp.clientSecret, issuer: idp.issuer } });
    expect(idp.accountIdOf(" Ada@Example.com")).toBe(idp.accountIdOf("ada@example.com"));
  });

  it("refuses redirect URIs that are not Vestibule OAuth callbacks", async () => {
    const q = new URLSearchParams({ client_id: idp.clientId, response_type: "code", scope: "openid", redirect_uri: "https://evil.example.com/steal", code_challenge: "x".repeat(43), code_challenge_method: "S256" });
    const res = await fetch(`${idp.issuer}/auth?${q}`, { redirect: "manual" });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain("redirect_uri");
  });

  it("enables the shared providers once on projects that have none", async () => {
    const rpc = { identityUrl: stack.env.VESTIBULE_IDENTITY_URL!, serviceSecret: stack.env.VESTIBULE_SERVICE_SECRET!, stateFile: join(dir, "dev-oauth.json") };
    const projects = createServiceClient(ProjectService, { baseUrl: rpc.identityUrl, caller: "test", secret: rpc.serviceSecret });
    const providersOf = async (id: string) => (JSON.parse((await projects.getProject({ projectId: id })).project!.adminConfigJson) as { oauth_providers: { id: string; type: string }[] }).oauth_providers;
    expect(await seedDevProviders({ ...rpc, projectIds: [stack.demo.projectId] })).toEqual([stack.demo.projectId]);
    expect((await providersOf(stack.demo.projectId)).map((p) => [p.id, p.type])).toEqual(DEV_SHARED_PROVIDERS.map((id) => [id, "shared"]).sort());
    // A developer who removes them keeps them removed.
    await projects.updateProject({ projectId: stack.demo.projectId, configUpdateJson: JSON.stringify({ oauth_providers: [] }) });
    expect(await seedDevProviders({ ...rpc, projectIds: [stack.demo.projectId] })).toEqual([]);
    expect(await providersOf(stack.demo.projectId)).toEqual([]);
  });
});
