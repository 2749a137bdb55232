import type { User } from "@vestibule/proto/identity/v1/user";
import { knownError } from "@vestibule/shared/errors";
import { isUuid } from "@vestibule/shared/ids";
import { isRedirectUrlTrusted } from "../domain/redirect.ts";
import type { AuthSettings } from "../domain/settings.ts";
import type { AuthRuntime } from "../runtime.ts";

/** The steps the password RPCs (sign-up, password changes, resets) share. */

/** The project's settings, when password sign-in is on (else PASSWORD_AUTHENTICATION_NOT_ENABLED). */
export async function passwordSettings(rt: AuthRuntime, projectId: string): Promise<AuthSettings> {
  const s = await rt.settings.get(projectId);
  if (!s.passwordSignIn) throw knownError("PASSWORD_AUTHENTICATION_NOT_ENABLED");
  return s;
}

export function assertTrusted(s: AuthSettings, url: string): void {
  if (!isRedirectUrlTrusted(url, s.redirectTrust)) throw knownError("REDIRECT_URL_NOT_WHITELISTED");
}

export async function findAuthUser(rt: AuthRuntime, projectId: string, email: string): Promise<User | undefined> {
  const res = await rt.identity.users.findUserByAuthEmail({ projectId, email });
  return res.user;
}

/** A user that must exist (path semantics: USER_NOT_FOUND). */
export async function existingUser(rt: AuthRuntime, projectId: string, userId: string): Promise<User> {
  if (!isUuid(userId)) throw knownError("USER_NOT_FOUND");
  const user = await rt.sessions.getUser(projectId, userId);
  if (!user) throw knownError("USER_NOT_FOUND");
  return user;
}

/** Mirrors "has a password" into identity's user (which serves has_password / auth_with_email). */
export async function syncHasPassword(rt: AuthRuntime, projectId: string, user: User, hasPassword: boolean): Promise<void> {
  if (user.hasPassword === hasPassword) return;
  await rt.identity.users.updateUser({ projectId, userId: user.id, hasPassword });
}

/** Best-effort undo of a user created in identity when storing its credentials failed. */
export async function compensateCreatedUser(rt: AuthRuntime, projectId: string, userId: string, cause: unknown): Promise<void> {
  const { log } = rt.ctx;
  log.warn({ project_id: projectId, user_id: userId, err: (cause as Error)?.message }, "storing credentials failed; deleting the user just created");
  try {
    await rt.identity.users.deleteUser({ projectId, userId });
  } catch (err) {
    log.error({ project_id: projectId, user_id: userId, err }, "compensation failed: could not delete the user created in identity");
  }
}

/** Undoing a stored password after a later step failed did not work either: logged, the first error still answers. */
export function compensationFailed(rt: AuthRuntime, projectId: string, userId: string, cause: unknown): void {
  rt.ctx.log.error({ project_id: projectId, user_id: userId, err: (cause as Error)?.message }, "compensation failed: could not delete the password just stored");
}
