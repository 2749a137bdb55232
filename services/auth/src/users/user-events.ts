import type { User } from "@vestibule/proto/identity/v1/user";
import { consumeDeletedUsers, consumeEvents, type Subscription } from "@vestibule/shared/events";
import type { PoolClient } from "@vestibule/shared/db";
import { isUuid } from "@vestibule/shared/ids";
import type { ServiceContext } from "@vestibule/shared/service";
import { tokenUser } from "../signing/access-tokens.ts";
import { AuthEvents, CONSUMERS, ConsumedEvents } from "../events.ts";
import { claimsStore } from "../sessions/store/claims-store.ts";
import { oauthStore } from "../oauth/store/oauth-store.ts";
import { codeStore } from "../codes/store/code-store.ts";
import { credentialStore } from "../passwords/store/credential-store.ts";
import { passkeyStore } from "../passkeys/store/passkey-store.ts";
import { sessionStore } from "../sessions/store/session-store.ts";

async function storeSnapshot(tx: PoolClient, user: User | undefined): Promise<void> {
  if (!user || !isUuid(user.id) || !user.projectId) return;
  await claimsStore.upsert(tx, { ...tokenUser(user), projectId: user.projectId, version: Number(user.version) });
}

/** Passkeys turned off for a user (`passkey_auth_enabled` false): the credentials enabled before that version go. */
async function disablePasskeys(tx: PoolClient, user: User | undefined): Promise<void> {
  if (!user || user.passkeyAuthEnabled || !isUuid(user.id) || !user.projectId) return;
  await passkeyStore.deleteEnabledBefore(tx, user.projectId, user.id, Number(user.version));
}

/**
 * What auth removes of a deleted user, in the caller's transaction: sessions (with their refresh tokens), password,
 * passkeys, one-time codes, and the claims snapshot, which becomes a tombstone that late events cannot revive. Idempotent.
 * Returns the number of sessions removed.
 */
export async function forgetDeletedUser(ctx: ServiceContext, tx: PoolClient, projectId: string, userId: string): Promise<number> {
  const sessions = await sessionStore.deleteForUser(tx, projectId, userId);
  await credentialStore.delete(tx, projectId, userId);
  await passkeyStore.deleteForUser(tx, projectId, userId);
  await codeStore.deleteForUser(tx, projectId, userId);
  await oauthStore.deleteAccountsOfUser(tx, projectId, userId);
  await claimsStore.tombstone(tx, projectId, userId);
  if (sessions > 0) await ctx.outbox.enqueue(tx, AuthEvents.sessionRevoked, { projectId, userId, sessionId: "" }, { projectId });
  return sessions;
}

/**
 * The identity user events the auth service follows, each a durable, idempotent consumer (consumeEvents records the
 * event id in the handler's transaction, so a redelivery changes nothing):
 *  - identity.user.created.v1 / .updated.v1 → the user's claims snapshot (what access tokens say), newest version wins;
 *    an update that turns passkey_auth_enabled off removes the passkeys enabled before it;
 *  - identity.user.deleted.v1 → the user's sessions, password, passkeys and one-time codes go, and the snapshot becomes a
 *    tombstone that late events cannot revive.
 */
export async function startUserEventConsumers(ctx: ServiceContext): Promise<() => Promise<void>> {
  const { bus, pool, log } = ctx;
  const subs: Subscription[] = [];
  try {
    subs.push(
      await consumeEvents({
        bus,
        pool,
        log,
        consumer: CONSUMERS.userCreated,
        event: ConsumedEvents.userCreated,
        handler: ({ payload }, tx) => storeSnapshot(tx, payload.user),
      }),
      await consumeEvents({
        bus,
        pool,
        log,
        consumer: CONSUMERS.userUpdated,
        event: ConsumedEvents.userUpdated,
        handler: async ({ payload }, tx) => {
          await storeSnapshot(tx, payload.user);
          await disablePasskeys(tx, payload.user);
        },
      }),
      await consumeDeletedUsers({
        bus,
        pool,
        log,
        consumer: CONSUMERS.userDeleted,
        handler: async ({ projectId, userId, eventId }, tx) => {
          const sessions = await forgetDeletedUser(ctx, tx, projectId, userId);
          log.info({ event_id: eventId, project_id: projectId, user_id: userId, sessions }, "deleted user's sessions and credentials removed");
        },
      }),
    );
  } catch (err) {
    await Promise.all(subs.map((s) => s.stop().catch(() => {})));
    throw err;
  }
  return async () => {
    await Promise.all(subs.map((s) => s.stop()));
  };
}
