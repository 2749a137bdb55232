/**
 * The admin app's own objects, and the calls of a user of the `internal` project (which hand out admin apps). Here
 * rather than in admin-app.ts, so that no module needs the admin app for a type.
 */
import type { Json } from "../json.ts";
import type { ProjectConfig } from "./app.ts";
import type { CurrentUser } from "./users.ts";

/**
 * Calls of a user of the `internal` project (a dashboard user, who manages projects through their teams). The client
 * app of the internal project returns users with these methods; the published SDK types them through the app's
 * project-id type parameter, which this SDK does not carry, so narrow with `user as CurrentInternalUser`.
 */
export interface InternalUserExtra {
  /** The projects this user manages (GET /internal/projects), each with an admin app acting as this user. */
  listOwnedProjects(): Promise<AdminOwnedProject[]>;
  /** Creates a project owned by one of the user's teams (POST /internal/projects). */
  createProject(options: AdminProjectCreateOptions): Promise<AdminOwnedProject>;
}
export type CurrentInternalUser = CurrentUser & InternalUserExtra;

export interface InternalApiKeyBase {
  readonly id: string;
  readonly description: string;
  /**
   * Null when the key set never expires: the API always gives new key sets an expiry, but the platform's own key sets
   * (e.g. the ones `npm start` makes for its projects) have none.
   */
  readonly expiresAt: Date | null;
  readonly manuallyRevokedAt: Date | null;
  readonly createdAt: Date;
  isValid(): boolean;
  whyInvalid(): "expired" | "manually-revoked" | null;
  revoke(): Promise<void>;
}
export type InternalApiKey = InternalApiKeyBase & {
  readonly publishableClientKey: { lastFour: string } | null;
  readonly secretServerKey: { lastFour: string } | null;
  readonly superSecretAdminKey: { lastFour: string } | null;
};
export type InternalApiKeyFirstView = InternalApiKeyBase & {
  readonly publishableClientKey?: string;
  readonly secretServerKey?: string;
  readonly superSecretAdminKey?: string;
};
export interface InternalApiKeyCreateOptions {
  description: string;
  expiresAt: Date;
  hasPublishableClientKey: boolean;
  hasSecretServerKey: boolean;
  hasSuperSecretAdminKey: boolean;
}
export interface PermissionDefinition {
  readonly id: string;
  readonly description?: string;
  readonly containedPermissionIds: string[];
}
export interface PermissionDefinitionCreateOptions {
  id: string;
  description?: string;
  containedPermissionIds: string[];
}
/** The project's configuration as the admin sees it: the client's view (but its providers) and more. */
export interface AdminProjectConfig extends Omit<ProjectConfig, "oauthProviders"> {
  readonly allowLocalhost: boolean;
  readonly createTeamOnSignUp: boolean;
  readonly oauthAccountMergeStrategy: "link_method" | "raise_error" | "allow_duplicates";
  readonly oauthProviders: readonly ({ id: string } & Json)[];
  readonly domains: readonly { domain: string; handlerPath: string }[];
  readonly emailConfig?: Json;
  readonly emailTheme: string;
  readonly teamCreatorDefaultPermissions: readonly { id: string }[];
  readonly teamMemberDefaultPermissions: readonly { id: string }[];
  readonly userDefaultPermissions: readonly { id: string }[];
}
export interface AdminProjectUpdateOptions {
  displayName?: string;
  description?: string;
  isProductionMode?: boolean;
  logoUrl?: string | null;
  fullLogoUrl?: string | null;
  config?: Partial<Omit<AdminProjectConfig, "oauthProviders" | "domains">> & {
    oauthProviders?: Json[];
    domains?: { domain: string; handlerPath: string }[];
  };
}
export interface AdminProject {
  readonly id: string;
  readonly displayName: string;
  readonly description: string | null;
  readonly createdAt: Date;
  readonly isProductionMode: boolean;
  readonly ownerTeamId: string | null;
  readonly logoUrl: string | null | undefined;
  readonly fullLogoUrl: string | null | undefined;
  readonly config: AdminProjectConfig;
  update(update: AdminProjectUpdateOptions): Promise<void>;
  delete(): Promise<void>;
  transfer(user: CurrentUser, newTeamId: string): Promise<void>;
  getConfig(): Promise<Json>;
  updateConfig(config: Json): Promise<void>;
}

/** `user.createProject(...)`: like a project update, plus the owner team (one of the user's teams). */
export interface AdminProjectCreateOptions extends Omit<AdminProjectUpdateOptions, "displayName"> {
  displayName: string;
  /** The team that owns the project; its members manage it. The user must be a member. */
  teamId: string;
}

/** GET /internal/metrics (wire shape, as the published SDK returns it). Days are UTC dates, oldest first. */
export interface AdminMetrics {
  readonly total_users: number;
  readonly daily_users: readonly { readonly date: string; readonly activity: number }[];
  readonly daily_active_users: readonly { readonly date: string; readonly activity: number }[];
  /** ISO country code → users. */
  readonly users_by_country: Readonly<Record<string, number>>;
  readonly recently_registered: readonly Json[];
  readonly recently_active: readonly Json[];
  readonly login_methods: readonly { readonly method: string; readonly count: number }[];
}

/** GET /internal/metrics/activity (Vestibule's own): the dashboard overview's activity over the last `days` days. */
export interface AdminActivityReport {
  readonly granularity: "day" | "week" | "month";
  /** First and last UTC day of the range; the buckets widen it to whole weeks or months. */
  readonly from: string;
  readonly to: string;
  /** Oldest first: sign-ups and distinct active users of the day, ISO week (Monday) or month starting at `start`. */
  readonly buckets: readonly { readonly start: string; readonly sign_ups: number; readonly active_users: number }[];
  /** Weekly sign-up cohorts: of the users who signed up in `week`, those active `offset` weeks later, and their share. */
  readonly retention: readonly {
    readonly week: string;
    readonly users: number;
    readonly retained: readonly { readonly offset: number; readonly users: number; readonly share: number }[];
  }[];
}

/** `queryAnalytics` options (as the published SDK's): a named query of the analytics API and its params. */
export interface AnalyticsQueryOptions {
  /** page_views_per_day, active_users_per_day, events_per_day, event_types, top_pages or recent_events. */
  query: string;
  params?: Record<string, unknown>;
  timeout_ms?: number;
  include_all_branches?: boolean;
}

export interface AnalyticsQueryResponse {
  readonly result: Record<string, unknown>[];
  readonly query_id: string;
}

/**
 * The admin app's class, as the type of an owned project's `app`. admin-app.ts declares it to extend StackAdminApp
 * (declaration merging, `declare module "./types/admin.ts"`), so that this module names the admin app without
 * importing it: the admin app's module imports this one, and an import back (even a type query) would be a cycle.
 */
export interface OwnedProjectAdminApp {}

/** A project the signed-in internal user manages, with an admin app that acts as that user (dashboard mode). */
export type AdminOwnedProject = AdminProject & { readonly app: OwnedProjectAdminApp };

/** Filters of the audit log (GET /internal/audit-log; services/identity/src/audit/README.md). */
export interface AuditLogFilter {
  readonly actorType?: "admin_user" | "admin_key" | "server_key" | "development_override";
  readonly actorId?: string;
  readonly resourceType?: string;
  readonly resourceId?: string;
  readonly action?: string;
  readonly since?: Date;
  readonly until?: Date;
}

/** One audit-log entry: who (actor), what (action on a resource, before/after without secrets), when, from where. */
export interface AuditLogEntry {
  readonly id: string;
  readonly seq: number;
  readonly occurred_at_millis: number;
  readonly actor: { readonly type: string; readonly id: string; readonly project_id: string; readonly ip: string; readonly user_agent: string };
  readonly action: string;
  readonly resource_type: string;
  readonly resource_id: string;
  readonly before: unknown;
  readonly after: unknown;
  readonly request_id: string;
  readonly request_line: string;
  readonly prev_hash: string;
  readonly hash: string;
}
