import type { Client } from "@connectrpc/connect";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { PasswordService, SignInWithPasswordRequestSchema, SignInWithPasswordResponse } from "@vestibule/proto/auth/v1/password_service";
import { RpcBatcher, type RpcBatcherOptions } from "./rpc-batcher.ts";

type Passwords = Pick<Client<typeof PasswordService>, "signInWithPasswords" | "signInWithPassword">;
export type PasswordSignInRequest = MessageInitShape<typeof SignInWithPasswordRequestSchema>;

/**
 * Password sign-ins, batched into SignInWithPasswords calls (see RpcBatcher): under load the auth service then
 * looks up a whole batch's users in one identity call, reads their credentials in one query and opens their
 * sessions in one insert, instead of paying an RPC hop and several round trips per sign-in. An auth service without
 * SignInWithPasswords gets single SignInWithPassword calls.
 */
export class SignInBatcher {
  private readonly batcher: RpcBatcher<PasswordSignInRequest, SignInWithPasswordResponse>;

  constructor(passwords: Passwords, options: RpcBatcherOptions = {}) {
    this.batcher = new RpcBatcher<PasswordSignInRequest, SignInWithPasswordResponse>(
      {
        service: "auth",
        name: "sign-in-batch",
        sendBatch: async (requests) =>
          (await passwords.signInWithPasswords({ requests })).results.map((r) => r.outcome),
        sendOne: (request) => passwords.signInWithPassword(request),
      },
      options,
    );
  }

  signIn(request: PasswordSignInRequest): Promise<SignInWithPasswordResponse> {
    return this.batcher.call(request);
  }
}
