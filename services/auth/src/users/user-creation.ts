/**
 * Creating a user together with its credentials — password hash, TOTP secret, OAuth links — as one step of the auth
 * service: identity creates the user (with the flags that mirror the credentials), then the credentials are stored in
 * one transaction; when that fails the user is deleted again, so no caller ever undoes half a user by hand. Used by
 * `CreateUserWithCredential` (server `POST /users`) and OAuth sign-up.
 */
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { User } from "@vestibule/proto/identity/v1/user";
import type { CreateUserRequestSchema } from "@vestibule/proto/identity/v1/user_service";
import { withTransaction } from "@vestibule/shared/db";
import { newId } from "@vestibule/shared/ids";
import type { AuthRuntime } from "../runtime.ts";
import { securityRuntime } from "../security-runtime.ts";
import { credentialStore } from "../passwords/store/credential-store.ts";
import { oauthStore } from "../oauth/store/oauth-store.ts";

export interface NewUserOAuthLink {
  readonly providerConfigId: string;
  readonly providerType: string;
  readonly accountId: string;
  readonly email: string | null;
  readonly sharedKeys: boolean;
}

export interface NewUserCredentials {
  readonly passwordHash?: string;
  readonly totpSecret?: Uint8Array;
  readonly oauthLinks?: readonly NewUserOAuthLink[];
}

export async function createUserWithCredentials(
  rt: AuthRuntime,
  user: MessageInitShape<typeof CreateUserRequestSchema> & { projectId: string },
  creds: NewUserCredentials,
): Promise<User> {
  const { pool, log } = rt.ctx;
  const links = creds.oauthLinks ?? [];
  // A plain init object whichever form the caller has (a received message carries its type name).
  const { $typeName: _typeName, ...fields } = user as typeof user & { $typeName?: string };
  const res = await rt.identity.users.createUser({
    ...fields,
    hasPassword: creds.passwordHash !== undefined,
    // A caller may also hold the user to MFA without a secret yet (identity's flag alone).
    requiresTotpMfa: fields.requiresTotpMfa === true || creds.totpSecret !== undefined,
    oauthProviders: links.map((l) => ({ id: l.providerConfigId, accountId: l.accountId, email: l.email ?? undefined })),
  });
  const created = res.user!;
  try {
    await withTransaction(pool, async (tx) => {
      if (creds.passwordHash !== undefined) await credentialStore.upsert(tx, user.projectId, created.id, creds.passwordHash);
      if (creds.totpSecret !== undefined) await securityRuntime(rt).totp.set(tx, user.projectId, created.id, creds.totpSecret);
      for (const l of links) {
        const row = {
          id: newId(),
          projectId: user.projectId,
          userId: created.id,
          providerConfigId: l.providerConfigId,
          providerType: l.providerType,
          providerAccountId: l.accountId,
          email: l.email,
          allowSignIn: true,
          allowConnectedAccounts: true,
          sharedKeys: l.sharedKeys,
        };
        // A provider account that already signs someone in is linked without sign-in.
        if (!(await oauthStore.insertAccountIfAbsent(tx, row))) await oauthStore.insertAccountIfAbsent(tx, { ...row, allowSignIn: false });
      }
    });
  } catch (err) {
    log.warn({ project_id: user.projectId, user_id: created.id, err: (err as Error).message }, "storing credentials failed; deleting the user just created");
    await rt.identity.users.deleteUser({ projectId: user.projectId, userId: created.id }).catch((e: unknown) => {
      log.error({ project_id: user.projectId, user_id: created.id, err: e }, "compensation failed: could not delete the user created in identity");
    });
    throw err;
  }
  return created;
}
