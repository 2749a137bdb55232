import { Type } from "typebox";
import { Obj, UserIdOrMe, Uuid } from "../../validation/index.ts";
import type { RequestAuth } from "../../auth/request-auth.ts";
import { notificationPreferenceView } from "../../views/email.ts";
import { clientSelf, resolveUserId } from "../helpers.ts";
import { defineRoute } from "../route.ts";

const ANY = ["client", "server", "admin"] as const;

/** Clients only for themselves (plain 403 otherwise); server and admin for any user. */
function preferenceOwner(auth: RequestAuth, idOrMe: string): string {
  return auth.type === "client" ? clientSelf(auth, idOrMe, "manage notification preferences") : resolveUserId(auth, idOrMe);
}

export const listNotificationPreferencesRoute = defineRoute({
  method: "GET",
  path: "/emails/notification-preference/:user_id",
  summary: "A user's notification categories and whether each is enabled",
  tags: ["Notification preferences"],
  access: ANY,
  schemas: { params: Obj({ user_id: UserIdOrMe() }) },
  async handler({ auth, params, clients }) {
    const { preferences } = await clients.notificationPreferences.listNotificationPreferences({
      projectId: auth.projectId,
      userId: preferenceOwner(auth, params.user_id),
    });
    return { json: { items: preferences.map(notificationPreferenceView), is_paginated: false } };
  },
});

export const updateNotificationPreferenceRoute = defineRoute({
  method: "PATCH",
  path: "/emails/notification-preference/:user_id/:notification_category_id",
  summary: "Turn a notification category on or off for a user (Transactional cannot be turned off)",
  tags: ["Notification preferences"],
  access: ANY,
  schemas: { params: Obj({ user_id: UserIdOrMe(), notification_category_id: Uuid() }), body: Obj({ enabled: Type.Boolean() }) },
  async handler({ auth, params, body, clients }) {
    const { preference } = await clients.notificationPreferences.updateNotificationPreference({
      projectId: auth.projectId,
      userId: preferenceOwner(auth, params.user_id),
      notificationCategoryId: params.notification_category_id,
      enabled: body.enabled,
    });
    return { json: notificationPreferenceView(preference!) };
  },
});
