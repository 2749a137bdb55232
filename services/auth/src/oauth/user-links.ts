/**
 * A safety net for users created in identity with OAuth links of their own by a caller other than the auth service
 * (server `POST /users` and OAuth sign-up store their links themselves through user-creation.ts): identity.user.created.v1
 * → one oauth_accounts row per link not stored yet (no tokens; sign-in allowed unless that provider account already
 * signs someone in). Redeliveries and links that already exist change nothing.
 */
import { consumeEvents, type Subscription } from "@vestibule/shared/events";
import { isUuid, newId } from "@vestibule/shared/ids";
import { ConsumedEvents } from "../events.ts";
import type { AuthRuntime } from "../runtime.ts";
import { oauthRuntime } from "./runtime.ts";
import { isProviderType } from "./settings.ts";
import { oauthStore } from "./store/oauth-store.ts";

export const OAUTH_LINKS_CONSUMER = "auth-oauth-links-user-created";

export function startUserLinkImport(rt: AuthRuntime): Promise<Subscription> {
  const { ctx } = rt;
  return consumeEvents({
    bus: ctx.bus,
    pool: ctx.pool,
    log: ctx.log,
    consumer: OAUTH_LINKS_CONSUMER,
    event: ConsumedEvents.userCreated,
    // Most users have no links (every password, OTP and anonymous sign-up): acknowledged with no transaction.
    skip: async ({ payload }) => !payload.user || payload.user.oauthProviders.length === 0,
    handler: async ({ payload }, tx) => {
      const user = payload.user;
      if (!user || !isUuid(user.id) || user.oauthProviders.length === 0) return;
      const settings = await oauthRuntime(rt).settings.get(user.projectId);
      for (const link of user.oauthProviders) {
        const provider = settings.providers.get(link.id);
        const type = provider?.type ?? (isProviderType(link.id) ? link.id : undefined);
        if (!type || !link.accountId) continue;
        const row = {
          id: newId(),
          projectId: user.projectId,
          userId: user.id,
          providerConfigId: link.id,
          providerType: type,
          providerAccountId: link.accountId,
          email: link.email ?? null,
          allowSignIn: true,
          allowConnectedAccounts: true,
          sharedKeys: provider?.isShared ?? false,
        };
        const mine = await oauthStore.accountsOfUser(tx, user.projectId, user.id);
        if (mine.some((r) => r.provider_config_id === link.id && r.provider_account_id === link.accountId)) continue;
        if (!(await oauthStore.insertAccountIfAbsent(tx, row))) await oauthStore.insertAccountIfAbsent(tx, { ...row, allowSignIn: false });
      }
    },
  });
}
