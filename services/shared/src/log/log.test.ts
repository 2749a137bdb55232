import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogger, withoutCredentials } from "./index.ts";

function capture() {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      for (const line of chunk.toString("utf8").split("\n").filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      cb();
    },
  });
  return { log: createLogger({ service: "test", level: "debug" }, sink), lines };
}

describe("log redaction", () => {
  it("hides the credential headers of a logged request (both header prefixes and the service token)", () => {
    const { log, lines } = capture();
    const headers: Record<string, string> = { "content-type": "application/json", authorization: "Bearer t0k", cookie: "c=1", "x-vestibule-service-token": "v1.svc" };
    for (const prefix of ["x-stack-", "x-hexclave-"]) {
      for (const h of ["access-token", "refresh-token", "publishable-client-key", "secret-server-key", "super-secret-admin-key", "admin-access-token"]) {
        headers[`${prefix}${h}`] = `secret ${prefix}${h}`;
      }
    }
    log.info({ req: { method: "POST", url: "/api/v1/x", headers } }, "request");
    const logged = JSON.stringify(lines[0]);
    expect(logged).not.toMatch(/secret x-|t0k|v1\.svc|c=1/);
    expect((lines[0]!.req as { headers: Record<string, string> }).headers["content-type"]).toBe("application/json");
  });

  it("hides secret fields of request and response bodies, in snake_case (REST) and camelCase (RPC messages), two levels deep", () => {
    const { log, lines } = capture();
    const body = {
      password: "p1",
      new_password: "p2",
      newPassword: "p3",
      refresh_token: "r1",
      refreshToken: "r2",
      totp_secret_base64: "t1",
      totpSecret: "t2",
      client_secret: "c1",
      clientSecret: "c2",
      secretServerKey: "k1",
      superSecretAdminKey: "k2",
      publishableClientKey: "k3",
      attempt_code: "a1",
      polling_code: "a2",
      login_code: "a3",
      encrypted_value: "v1",
      html: "<a href='?code=h1'>",
      variablesJson: '{"otp":"o1"}',
      link: "https://x/?code=l1",
      nonce: "n1",
    };
    log.info({ body, res: { body } }, "call");
    log.info(body, "flat");
    const logged = JSON.stringify(lines);
    for (const value of Object.values(body)) expect(logged).not.toContain(value);
    expect(lines[1]!.msg).toBe("flat");
  });

  it("keeps the fields logs rely on", () => {
    const { log, lines } = capture();
    log.warn({ code: "USER_NOT_FOUND", status: 404, event_id: "e", project_id: "p" }, "known error");
    expect(lines[0]).toMatchObject({ code: "USER_NOT_FOUND", status: 404, event_id: "e", project_id: "p", service: "test" });
  });
});

describe("withoutCredentials", () => {
  it("hides passwords and tokens of URLs, lists of URLs and libpq query parameters", () => {
    expect(withoutCredentials("nats://user:s3cret@nats-1:4222,nats://user:s3cret@nats-2:4222")).toBe("nats://user:***@nats-1:4222,nats://user:***@nats-2:4222");
    expect(withoutCredentials("nats://t0ken@127.0.0.1:4222")).toBe("nats://***@127.0.0.1:4222");
    expect(withoutCredentials("postgres://app:pw@db:5432/vestibule?sslmode=require")).toBe("postgres://app:***@db:5432/vestibule?sslmode=require");
    expect(withoutCredentials("postgres://db/vestibule?user=app&password=pw&sslmode=require")).toBe("postgres://db/vestibule?user=app&password=***&sslmode=require");
    expect(withoutCredentials("nats://127.0.0.1:4222")).toBe("nats://127.0.0.1:4222");
  });
});
