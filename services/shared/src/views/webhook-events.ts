/**
 * The published Stack webhook event types (stack-shared `interface/webhooks.ts`), each `{type, data}` with data in the
 * REST API's server-view shapes: what an endpoint can subscribe to. One list for the e-mail service, which delivers
 * them, and the gateway, which validates subscriptions and serves it to the dashboard (`/internal/webhooks/event-types`).
 */
export const WEBHOOK_EVENT_TYPES = [
  "user.created",
  "user.updated",
  "user.deleted",
  "team.created",
  "team.updated",
  "team.deleted",
  "team_membership.created",
  "team_membership.deleted",
  "team_permission.created",
  "team_permission.deleted",
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];
