/** A user's notification categories and OAuth providers (client calls with the user's session, else server calls). */
import { KnownErrors, type AccessType, type ApiClient, type Session as CoreSession } from "@vestibule/sdk-core";
import { catchKnown } from "../catch-known.ts";
import type { Json } from "../json.ts";
import type { NotificationCategory, OAuthProvider } from "../types.ts";

export function notificationCategoryFrom(api: ApiClient, session: CoreSession | null, json: Json, userId: string): NotificationCategory {
  return {
    id: json.notification_category_id,
    name: json.notification_category_name,
    enabled: json.enabled,
    canDisable: json.can_disable,
    setEnabled: async (enabled) => {
      await api.send(`/emails/notification-preference/${userId}/${json.notification_category_id}`, {
        method: "PATCH",
        body: { enabled },
        session,
        accessType: session ? "client" : "server",
      });
    },
  };
}

export function oauthProviderFrom(api: ApiClient, session: CoreSession | null, json: Json): OAuthProvider {
  const path = `/oauth-providers/${session ? "me" : json.user_id}/${json.id}`;
  const accessType: AccessType = session ? "client" : "server";
  return {
    id: json.id,
    type: json.type ?? json.provider_config_id,
    userId: json.user_id,
    accountId: json.account_id,
    email: json.email ?? undefined,
    allowSignIn: json.allow_sign_in,
    allowConnectedAccounts: json.allow_connected_accounts,
    update: async (data: { allowSignIn?: boolean; allowConnectedAccounts?: boolean; accountId?: string; email?: string }) =>
      catchKnown(async () => {
        await api.send(path, {
          method: "PATCH",
          body: { allow_sign_in: data.allowSignIn, allow_connected_accounts: data.allowConnectedAccounts, account_id: data.accountId, email: data.email },
          session,
          accessType,
        });
        return undefined;
      }, KnownErrors.OAuthProviderAccountIdAlreadyUsedForSignIn),
    delete: async () => {
      await api.send(path, { method: "DELETE", session, accessType });
    },
  };
}
