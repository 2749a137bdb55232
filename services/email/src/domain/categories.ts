/**
 * The fixed notification categories (contract endpoints.md section 8). Both are enabled by default; Transactional
 * cannot be disabled. Pure data, no I/O.
 */
export interface NotificationCategory {
  readonly id: string;
  readonly name: "Transactional" | "Marketing";
  readonly canDisable: boolean;
}

export const TRANSACTIONAL: NotificationCategory = { id: "7bb82d33-2f54-4a3d-9d23-82739e0d66ef", name: "Transactional", canDisable: false };
export const MARKETING: NotificationCategory = { id: "4f6f8873-3d04-46bd-8bef-18338b1a1b4c", name: "Marketing", canDisable: true };

export const NOTIFICATION_CATEGORIES: readonly NotificationCategory[] = [TRANSACTIONAL, MARKETING];

export function categoryByName(name: string): NotificationCategory | undefined {
  return NOTIFICATION_CATEGORIES.find((c) => c.name === name);
}

export function categoryById(id: string): NotificationCategory | undefined {
  return NOTIFICATION_CATEGORIES.find((c) => c.id === id);
}
