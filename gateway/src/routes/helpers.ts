import { knownError, statusError } from "@vestibule/shared/errors";
import type { SignInResult } from "@vestibule/proto/auth/v1/session";
import type { RequestAuth } from "../auth/request-auth.ts";

/** `me` → the signed-in user's id (CANNOT_GET_OWN_USER_WITHOUT_USER without one); any other id as is. */
export function resolveUserId(auth: RequestAuth, idOrMe: string): string {
  if (idOrMe !== "me") return idOrMe;
  if (!auth.user) throw knownError("CANNOT_GET_OWN_USER_WITHOUT_USER");
  return auth.user.id;
}

/**
 * Clients may act only on their own user: `user_id` must be `me` or their own id, else a plain 403
 * (contract: "Client can only ... for their own user").
 */
export function clientSelf(auth: RequestAuth, idOrMe: string | undefined, what: string): string {
  if (idOrMe === undefined) throw statusError(403, `Client can only ${what} for their own user. user_id must be either "me" or the ID of the current user`);
  const id = resolveUserId(auth, idOrMe);
  if (auth.type === "client" && id !== auth.user?.id) {
    throw statusError(403, `Client can only ${what} for their own user. user_id must be either "me" or the ID of the current user`);
  }
  return id;
}

/** The sign-in result body: `{access_token, refresh_token, user_id}`, plus `is_new_user` where the contract has it. */
export function signInBody(r: SignInResult | undefined, withIsNewUser: boolean): Record<string, unknown> {
  if (!r) throw new Error("missing sign-in result");
  const body: Record<string, unknown> = { access_token: r.accessToken, refresh_token: r.refreshToken, user_id: r.userId };
  if (withIsNewUser) body.is_new_user = r.isNewUser;
  return body;
}
