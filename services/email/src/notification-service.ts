import type { ServiceImpl } from "@connectrpc/connect";
import { NotificationPreferenceService } from "@vestibule/proto/email/v1/notification_preference_service";
import { knownError, statusError } from "@vestibule/shared/errors";
import { isUuid } from "@vestibule/shared/ids";
import { hashSecret } from "@vestibule/shared/secrets";
import { categoryById, NOTIFICATION_CATEGORIES, type NotificationCategory } from "./domain/categories.ts";
import type { EmailRuntime } from "./runtime.ts";
import { preferenceStore } from "./store/preference-store.ts";

function view(category: NotificationCategory, enabled: boolean) {
  return { notificationCategoryId: category.id, notificationCategoryName: category.name, enabled, canDisable: category.canDisable };
}

/**
 * Notification preferences of the fixed categories (contract endpoints.md section 8). Both default to enabled;
 * Transactional cannot be turned off. The user must exist (USER_NOT_FOUND).
 */
export function createNotificationService(rt: EmailRuntime): ServiceImpl<typeof NotificationPreferenceService> {
  const { pool } = rt.ctx;

  async function assertUser(projectId: string, userId: string): Promise<void> {
    if (!isUuid(userId)) throw knownError("USER_NOT_FOUND");
    await rt.identity.users.getUser({ projectId, userId });
  }

  return {
    async listNotificationPreferences(req) {
      await assertUser(req.projectId, req.userId);
      const prefs = await preferenceStore.forUser(pool, req.projectId, req.userId);
      return { preferences: NOTIFICATION_CATEGORIES.map((c) => view(c, c.canDisable ? (prefs.get(c.id) ?? true) : true)) };
    },

    async updateNotificationPreference(req) {
      const category = categoryById(req.notificationCategoryId);
      if (!category) throw statusError(404, "Notification category not found.");
      await assertUser(req.projectId, req.userId);
      if (!category.canDisable && !req.enabled) throw statusError(400, `The ${category.name} notification category cannot be disabled.`);
      await preferenceStore.set(pool, req.projectId, req.userId, category.id, req.enabled);
      return { preference: view(category, req.enabled) };
    },

    async unsubscribe(req) {
      const row = req.token ? await preferenceStore.token(pool, hashSecret(req.token)) : undefined;
      const category = row ? categoryById(row.category_id) : undefined;
      if (!row || !category) throw statusError(404, "This unsubscribe link is not valid.");
      await preferenceStore.set(pool, row.project_id, row.user_id, category.id, false);
      return { projectId: row.project_id, notificationCategoryName: category.name };
    },
  };
}
