import { extractCode, waitForMail as waitForMailIn } from "@vestibule/shared/testing";
import { randomBytes } from "node:crypto";
import { MailboxService, type MailboxMessage } from "@vestibule/proto/email/v1/mailbox_service";
import { createServiceClient } from "@vestibule/shared/rpc";
import { call, headersFor, type ApiResponse, type ProjectKeys, type Stack } from "./support.ts";

/** A user signed up with a password on a project: their id, access token and client headers carrying the token. */
export interface SignedUpUser {
  readonly userId: string;
  readonly email: string;
  readonly accessToken: string;
  readonly refreshToken: string;
  /** Client headers of the project plus the user's access token. */
  readonly headers: Record<string, string>;
}

export async function signUp(stack: Stack, keys: ProjectKeys = stack.demo, email = `member-${randomBytes(5).toString("hex")}@example.com`): Promise<SignedUpUser> {
  const res = await call(stack, "POST", "/api/v1/auth/password/sign-up", {
    headers: headersFor(keys, "client"),
    body: { email, password: "team player 123", verification_callback_url: "http://localhost:3000/handler/email-verification" },
  });
  if (res.status !== 200) throw new Error(`sign-up failed: ${res.status} ${res.text}`);
  return {
    userId: res.json.user_id,
    email,
    accessToken: res.json.access_token,
    refreshToken: res.json.refresh_token,
    headers: { ...headersFor(keys, "client"), "x-stack-access-token": res.json.access_token },
  };
}

/** Polls a request until `done` accepts its response (for changes that travel by event). */
export async function eventually(fn: () => Promise<ApiResponse>, done: (res: ApiResponse) => boolean, timeoutMs = 10_000): Promise<ApiResponse> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await fn();
    if (done(res)) return res;
    if (Date.now() > deadline) throw new Error(`condition not reached; last answer ${res.status} ${res.text.slice(0, 300)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The newest e-mail to `to` in the dev mailbox (the e-mail service's record), waiting for its delivery. */
export function waitForMail(stack: Stack, to: string, predicate?: (m: MailboxMessage) => boolean, timeoutMs?: number): Promise<MailboxMessage> {
  const mailbox = createServiceClient(MailboxService, { baseUrl: `http://127.0.0.1:${stack.email!.port}`, caller: "test", secret: stack.env.VESTIBULE_SERVICE_SECRET! });
  return waitForMailIn(mailbox, { to, predicate, timeoutMs });
}

/** The 45-character code of a mail's `?code=` link. */
export const codeOf = (mail: MailboxMessage): string => extractCode(mail);
