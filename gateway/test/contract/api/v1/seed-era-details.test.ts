/**
 * Issue 13, "seed-era details that differ today": answers found by driving the REST API the way the published product's
 * own clients do, each pinned here to the published backend's answer.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ProjectService } from "@vestibule/proto/identity/v1/project_service";
import { createServiceClient } from "@vestibule/shared/rpc";
import { standardConfig, startTestSmtp } from "../../../../../services/email/test/smtp-fixtures.ts";
import { call, expectKnownError, headersFor, startStack, type Stack } from "../../../support.ts";

let stack: Stack;
let smtp: Awaited<ReturnType<typeof startTestSmtp>>;
beforeAll(async () => {
  smtp = await startTestSmtp();
  stack = await startStack({ auth: true });
  const admin = headersFor(stack.demo, "admin");
  expect((await call(stack, "PATCH", "/api/v1/internal/projects/current", { headers: admin, body: { config: { magic_link_enabled: true } } })).status).toBe(200);
});
afterAll(async () => {
  await stack?.stop();
  await smtp?.close();
});

const client = () => headersFor(stack.demo, "client");
const server = () => headersFor(stack.demo, "server");
const newEmail = (p = "sed") => `${p}-${randomBytes(4).toString("hex")}@example.com`;

async function signUp() {
  const res = await call(stack, "POST", "/api/v1/auth/password/sign-up", { headers: client(), body: { email: newEmail(), password: "a good password" } });
  expect(res.status).toBe(200);
  return { userId: res.json.user_id as string, accessToken: res.json.access_token as string, refreshToken: res.json.refresh_token as string };
}

describe("POST /users accepts what the published backend accepts", () => {
  it("takes a loosely valid e-mail and a short server-set password, refuses a broken base64 image", async () => {
    const loose = await call(stack, "POST", "/api/v1/users", { headers: server(), body: { primary_email: "invalid_email@gmai", password: "short", primary_email_auth_enabled: true } });
    expect(loose.status, loose.text).toBe(201);
    expect(loose.json.primary_email).toBe("invalid_email@gmai");
    const signIn = await call(stack, "POST", "/api/v1/auth/password/sign-in", { headers: client(), body: { email: "invalid_email@gmai", password: "short" } });
    // Sign-in keeps the contract's strict e-mail rule; the account exists all the same.
    expect([200, 400]).toContain(signIn.status);
    const bad = await call(stack, "POST", "/api/v1/users", { headers: server(), body: { profile_image_url: "data:image/png;base64,not*base64" } });
    expect(bad.status).toBe(400);
    expect(bad.text).toBe("Invalid profile image URL");
    const good = await call(stack, "POST", "/api/v1/users", { headers: server(), body: { profile_image_url: "data:image/png;base64,iVBORw0KGgo=" } });
    expect(good.status).toBe(201);
    const patched = await call(stack, "PATCH", `/api/v1/users/${good.json.id}`, { headers: server(), body: { profile_image_url: "data:image/png;base64,%%%" } });
    expect(patched.text).toBe("Invalid profile image URL");
  });
});

describe("small answers", () => {
  it("CLI login completes with a valid refresh token: 200 {success: true}", async () => {
    const browser = await signUp();
    const start = await call(stack, "POST", "/api/v1/auth/cli", { headers: client(), body: {} });
    expect(start.status, start.text).toBe(200);
    const done = await call(stack, "POST", "/api/v1/auth/cli/complete", { headers: client(), body: { login_code: start.json.login_code, refresh_token: browser.refreshToken } });
    expect(done.status, done.text).toBe(200);
    expect(done.json).toEqual({ success: true });
  });

  it("send-email with user_ids: [] answers 200 {results: []}", async () => {
    const projects = createServiceClient(ProjectService, { baseUrl: `http://127.0.0.1:${stack.identity.port}`, caller: "test", secret: stack.env.VESTIBULE_SERVICE_SECRET! });
    await projects.updateProject({ projectId: stack.demo.projectId, configUpdateJson: JSON.stringify(standardConfig(smtp.port)) });
    const res = await call(stack, "POST", "/api/v1/emails/send-email", { headers: server(), body: { user_ids: [], html: "<p>hi</p>", subject: "Hi" } });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toEqual({ results: [] });
  });

  it("legacy send-verification-code signed out: CANNOT_GET_OWN_USER_WITHOUT_USER", async () => {
    const res = await call(stack, "POST", "/api/v1/contact-channels/send-verification-code", {
      headers: client(),
      body: { email: newEmail(), callback_url: "http://localhost:3000/handler/email-verification" },
    });
    expectKnownError(res, 400, "CANNOT_GET_OWN_USER_WITHOUT_USER");
  });

  it("deleting a missing contact channel answers the published 400 text", async () => {
    const me = await signUp();
    const res = await call(stack, "DELETE", `/api/v1/contact-channels/${me.userId}/0b3c2f4e-5d6a-4b7c-8d9e-0f1a2b3c4d5e`, { headers: server() });
    expect(res.status).toBe(400);
    expect(res.text).toBe("Contact channel not found");
  });

  it("rendering an unknown template answers 400 'No template found with given id'", async () => {
    const res = await call(stack, "POST", "/api/v1/emails/render-email", {
      headers: headersFor(stack.demo, "admin"),
      body: { template_id: "0b3c2f4e-5d6a-4b7c-8d9e-0f1a2b3c4d5e" },
    });
    expect(res.status).toBe(400);
    expect(res.text).toBe("No template found with given id");
  });

  it("too many wrong OTPs for one nonce: VERIFICATION_CODE_MAX_ATTEMPTS_REACHED (400), not 429", async () => {
    const sent = await call(stack, "POST", "/api/v1/auth/otp/send-sign-in-code", {
      headers: client(),
      body: { email: newEmail("otp"), callback_url: "http://localhost:3000/handler/magic-link-callback" },
    });
    expect(sent.status, sent.text).toBe(200);
    const nonce = sent.json.nonce as string;
    const answers: string[] = [];
    for (let i = 0; i < 8; i++) {
      const res = await call(stack, "POST", "/api/v1/auth/otp/sign-in", { headers: client(), body: { code: `00000${i}${nonce}` } });
      expect(res.status).not.toBe(429);
      answers.push(res.json.code);
    }
    expect(answers[0]).toBe("VERIFICATION_CODE_NOT_FOUND");
    expect(answers.at(-1)).toBe("VERIFICATION_CODE_MAX_ATTEMPTS_REACHED");
  });
});

describe("JWKS", () => {
  it("serves two keys per audience, four with include_anonymous=true", async () => {
    const res = await call(stack, "GET", `/api/v1/projects/${stack.demo.projectId}/.well-known/jwks.json`);
    expect(res.status).toBe(200);
    expect(res.json.keys).toHaveLength(2);
    const both = await call(stack, "GET", `/api/v1/projects/${stack.demo.projectId}/.well-known/jwks.json?include_anonymous=true`);
    expect(both.json.keys).toHaveLength(4);
    expect(both.json.keys.slice(0, 2)).toEqual(res.json.keys);
    expect(new Set(both.json.keys.map((k: { kid: string }) => k.kid)).size).toBe(4);
    // The first key signs: a fresh token names it.
    const token = (await signUp()).accessToken;
    const kid = JSON.parse(Buffer.from(token.split(".")[0]!, "base64url").toString()).kid;
    expect(res.json.keys[0].kid).toBe(kid);
  });
});

describe("config override wording", () => {
  it("answers the published backend's texts for an unknown key and for JSON that does not parse", async () => {
    const admin = headersFor(stack.demo, "admin");
    const unknown = await call(stack, "PATCH", "/api/v1/internal/config/override", { headers: admin, body: { config_override_string: JSON.stringify({ "nope.key": 1 }) } });
    expect(unknown.status).toBe(400);
    expect(unknown.text).toBe('[ERROR] The key "nope.key" is not valid for the schema.');
    const broken = await call(stack, "PATCH", "/api/v1/internal/config/override", { headers: admin, body: { config_override_string: "{nope" } });
    expect(broken.status).toBe(400);
    expect(broken.text).toBe("Invalid config JSON");
  });
});

describe("invalid project config answers SCHEMA_ERROR, not plain text", () => {
  it("a standard e-mail server or OAuth provider without its required fields", async () => {
    const admin = headersFor(stack.demo, "admin");
    const email = await call(stack, "PATCH", "/api/v1/internal/projects/current", { headers: admin, body: { config: { email_config: { type: "standard" } } } });
    expectKnownError(email, 400, "SCHEMA_ERROR");
    expect(email.json.error).toMatch(/^Request validation failed on PATCH \/api\/v1\/internal\/projects\/current:\n  - body\.config\.email_config\./);
    expect(email.json.details.message).toBe(email.json.error);
    const oauth = await call(stack, "PATCH", "/api/v1/internal/projects/current", {
      headers: admin,
      body: { config: { oauth_providers: [{ id: "github", type: "standard", client_id: "abc" }] } },
    });
    expectKnownError(oauth, 400, "SCHEMA_ERROR");
    expect(oauth.json.error).toContain("body.config.oauth_providers[0].client_secret");
  });
});

describe("send-email body wording", () => {
  it("a body with no content (or two) is not matched by any of the provided schemas", async () => {
    const none = await call(stack, "POST", "/api/v1/emails/send-email", { headers: server(), body: { user_ids: [] } });
    expectKnownError(none, 400, "SCHEMA_ERROR");
    expect(none.json.error).toBe(
      [
        "Request validation failed on POST /api/v1/emails/send-email:",
        "  - body is not matched by any of the provided schemas:",
        "    Schema 0:",
        "      body.html must be defined",
        "    Schema 1:",
        "      body.template_id must be defined",
        "    Schema 2:",
        "      body.draft_id must be defined",
      ].join("\n"),
    );
    const two = await call(stack, "POST", "/api/v1/emails/send-email", { headers: server(), body: { user_ids: [], html: "x", draft_id: "0b3c2f4e-5d6a-4b7c-8d9e-0f1a2b3c4d5e" } });
    expectKnownError(two, 400, "SCHEMA_ERROR");
    expect(two.json.error).toContain("body is not matched by any of the provided schemas:");
  });
});
