/**
 * POST /api/v1/auth/password/sign-in with many requests at once (the gateway batches them into SignInWithPasswords):
 * wrong passwords for one account are checked only as often as one after another would be (5), the rest answer the
 * usual 429 with Retry-After; right passwords sent at once all sign in. Blocks of 60 s, so that a request that waited
 * for the ones in flight sees their block however slow the machine is. (Argon2 work is counted in the auth service's
 * parallel-guesses.int.test.ts.)
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, expectKnownError, headersFor, startStack, type Stack } from "../../../support.ts";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ auth: true, env: { VESTIBULE_AUTH_RATE_LIMIT_BASE_SECONDS: "60" } });
});
afterAll(async () => {
  await stack?.stop();
});

const client = () => headersFor(stack.demo, "client");
const PASSWORD = "a good password";

async function signUp(): Promise<string> {
  const email = `parallel-${randomBytes(5).toString("hex")}@example.com`;
  const res = await call(stack, "POST", "/api/v1/auth/password/sign-up", {
    headers: client(),
    body: { email, password: PASSWORD, verification_callback_url: "http://localhost:3000/handler/email-verification" },
  });
  expect(res.status).toBe(200);
  return email;
}

const signIn = (email: string, password: string) => call(stack, "POST", "/api/v1/auth/password/sign-in", { headers: client(), body: { email, password } });

describe("/api/v1/auth/password/sign-in, many at once", () => {
  it("60 wrong passwords for one account at once: 5 are checked (400), 55 get 429 with Retry-After; then the right one gets 429 too", async () => {
    const email = await signUp();
    const answers = await Promise.all(Array.from({ length: 60 }, (_, i) => signIn(email, `wrong ${i}`)));
    const checked = answers.filter((r) => r.status === 400);
    for (const r of checked) expectKnownError(r, 400, "EMAIL_PASSWORD_MISMATCH");
    expect(checked).toHaveLength(5);
    const limited = answers.filter((r) => r.status === 429);
    expect(limited).toHaveLength(55);
    for (const r of limited) {
      const wait = Number(r.headers.get("retry-after"));
      expect(wait).toBeGreaterThan(0);
      expect(r.text).toContain(`Too many attempts. Please wait ${wait} seconds and try again.`);
    }
    expect((await signIn(email, PASSWORD)).status).toBe(429);
  });

  it("20 right passwords for one account at once all sign in", async () => {
    const email = await signUp();
    const answers = await Promise.all(Array.from({ length: 20 }, () => signIn(email, PASSWORD)));
    expect(answers.map((r) => r.status)).toEqual(Array<number>(20).fill(200));
  });
});
