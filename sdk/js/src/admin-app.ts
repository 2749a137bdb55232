/**
 * The admin app (super secret admin key, or an owner's session on the internal project for the dashboard): project
 * configuration, internal API keys, permission definitions, e-mail themes/templates/drafts, payments setup and
 * project transfer, on top of everything the server app does.
 */
import { ApiClient, KnownErrors, Result, type Session as CoreSession, type TokenPair } from "@vestibule/sdk-core";
import { currentUserSessions, type OwnedProjectSource } from "./objects/client.ts";
import type { Json } from "./json.ts";
import { keyFields } from "./objects/api-keys.ts";
import { projectUpdateBody } from "./project-body.ts";
import { defaultExtraRequestHeaders, defaultPublishableClientKey, defaultSecretServerKey, defaultSuperSecretAdminKey, resolveBaseUrl } from "./env.ts";
import { StackServerApp } from "./server-app.ts";
import type {
  AdminMetrics,
  AdminActivityReport,
  AdminOwnedProject,
  AdminProject,
  AnalyticsQueryOptions,
  AnalyticsQueryResponse,
  AuditLogEntry,
  AuditLogFilter,
  CurrentUser,
  InternalApiKey,
  InternalApiKeyCreateOptions,
  InternalApiKeyFirstView,
  PermissionDefinition,
  PermissionDefinitionCreateOptions,
  StackAdminAppConstructorOptions,
} from "./types.ts";
import { CLIENT_VERSION } from "./version.ts";

export { projectUpdateBody } from "./project-body.ts";

function auditQuery(f: AuditLogFilter): Record<string, string | number | undefined> {
  return {
    actor_type: f.actorType,
    actor_id: f.actorId || undefined,
    resource_type: f.resourceType || undefined,
    resource_id: f.resourceId || undefined,
    action: f.action || undefined,
    since: f.since?.getTime(),
    until: f.until?.getTime(),
  };
}

export const TRANSFER_NEEDS_INTERNAL_USER_MESSAGE =
  "transfer(user, teamId) needs a signed-in user of the internal project's client app (the user moves the project between their teams).";

export class StackAdminApp extends StackServerApp {
  constructor(options: StackAdminAppConstructorOptions) {
    super(options as never);
  }

  /** One page of the project's audit log, newest first; pass `nextCursor` back for the next page. */
  async listAuditLog(filter: AuditLogFilter = {}, page: { cursor?: string; limit?: number } = {}): Promise<{ items: AuditLogEntry[]; nextCursor: string | null }> {
    const json = await this.admin<{ items: AuditLogEntry[]; pagination: { next_cursor: string | null } }>("/internal/audit-log", {
      query: { ...auditQuery(filter), cursor: page.cursor, limit: page.limit },
    });
    return { items: json.items, nextCursor: json.pagination.next_cursor };
  }

  /** Every matching audit-log entry as JSON lines (GET /internal/audit-log/export). */
  async exportAuditLog(filter: AuditLogFilter = {}): Promise<string> {
    return (await this.api.send("/internal/audit-log/export", { accessType: "admin", query: auditQuery(filter) })).text;
  }

  /** @internal */
  protected override createApiClient(options: StackAdminAppConstructorOptions): ApiClient {
    const base = resolveBaseUrl(options.baseUrl);
    let owner: CoreSession | undefined;
    if ("projectOwnerSession" in options) {
      const given = options.projectOwnerSession;
      if (typeof (given as CoreSession).getOrFetchLikelyValidTokens === "function") owner = given as CoreSession;
      else {
        // The owner's session lives on the internal project: refresh it there.
        const internal = new ApiClient({ baseUrl: base, projectId: "internal", publishableClientKey: options.projectOwnerPublishableClientKey, clientVersion: CLIENT_VERSION, fetch: options.fetch });
        owner = internal.createSession(given as TokenPair);
      }
    }
    const o = options as { publishableClientKey?: string; secretServerKey?: string; superSecretAdminKey?: string };
    return new ApiClient({
      baseUrl: base,
      projectId: this.projectId,
      publishableClientKey: o.publishableClientKey ?? defaultPublishableClientKey(),
      secretServerKey: owner ? undefined : (o.secretServerKey ?? defaultSecretServerKey()),
      superSecretAdminKey: owner ? undefined : (o.superSecretAdminKey ?? defaultSuperSecretAdminKey()),
      projectOwnerSession: owner,
      extraRequestHeaders: options.extraRequestHeaders ?? defaultExtraRequestHeaders(),
      clientVersion: CLIENT_VERSION,
      fetch: options.fetch,
      maxRateLimitWaitMillis: options.maxRateLimitWaitMillis,
    });
  }

  private admin<T>(path: string, init: { method?: string; body?: unknown; query?: Record<string, string | number | undefined> } = {}): Promise<T> {
    return this.api.json<T>(path, { ...init, accessType: "admin" });
  }

  // ---- webhooks ----------------------------------------------------------------------------------------------

  /** A token for the dashboard's webhook pages (POST /webhooks/svix-token, the published SDK's `getSvixToken`). */
  async getSvixToken(): Promise<{ token: string }> {
    return await this.admin<{ token: string }>("/webhooks/svix-token", { method: "POST", body: {} });
  }

  /** A call to the webhook pages' API (`/internal/webhooks<path>`), carrying a token from `getSvixToken`. */
  async webhooksApi<T>(token: string, path: string, init: { method?: string; body?: unknown; query?: Record<string, string | number | undefined> } = {}): Promise<T> {
    return await this.api.json<T>(`/internal/webhooks${path}`, { ...init, accessType: "admin", headers: { "x-vestibule-webhook-portal-token": token } });
  }

  // ---- project -----------------------------------------------------------------------------------------------

  /** The project with its full configuration (admin view). */
  override async getProject(): Promise<AdminProject> {
    return this.adminProjectFrom(await this.admin<Json>("/internal/projects/current"));
  }

  /** Totals, sign-ups and active users per day (last 30 UTC days), countries, login methods, recent users. */
  async getMetrics(includeAnonymous = false): Promise<AdminMetrics> {
    return this.admin<AdminMetrics>("/internal/metrics", { query: { include_anonymous: includeAnonymous ? "true" : undefined } });
  }

  /** Sign-ups, active users and weekly retention of the last `days` days per day, week or month (GET /internal/metrics/activity). */
  async getActivityReport(options: { days: number; granularity: AdminActivityReport["granularity"]; includeAnonymous?: boolean }): Promise<AdminActivityReport> {
    return this.admin<AdminActivityReport>("/internal/metrics/activity", {
      query: { days: String(options.days), granularity: options.granularity, include_anonymous: options.includeAnonymous ? "true" : undefined },
    });
  }

  /** Runs a named analytics query (POST /internal/analytics/query; services/identity/src/analytics/README.md lists them). */
  async queryAnalytics(options: AnalyticsQueryOptions): Promise<AnalyticsQueryResponse> {
    return this.admin<AnalyticsQueryResponse>("/internal/analytics/query", {
      method: "POST",
      body: { query: options.query, params: options.params ?? {}, timeout_ms: options.timeout_ms ?? 1_000, include_all_branches: options.include_all_branches ?? false },
    });
  }

  /** @internal */
  adminProjectFrom(json: Json): AdminProject {
    const c = json.config;
    const perms = (list: Json[] | undefined) => (list ?? []).map((p) => ({ id: p.id as string }));
    return {
      id: json.id,
      displayName: json.display_name,
      description: json.description ?? null,
      createdAt: new Date(json.created_at_millis),
      isProductionMode: json.is_production_mode,
      ownerTeamId: json.owner_team_id ?? null,
      logoUrl: json.logo_url,
      fullLogoUrl: json.full_logo_url,
      config: {
        signUpEnabled: c.sign_up_enabled,
        credentialEnabled: c.credential_enabled,
        magicLinkEnabled: c.magic_link_enabled,
        passkeyEnabled: c.passkey_enabled,
        clientTeamCreationEnabled: c.client_team_creation_enabled,
        clientUserDeletionEnabled: c.client_user_deletion_enabled,
        allowLocalhost: c.allow_localhost,
        allowUserApiKeys: c.allow_user_api_keys,
        allowTeamApiKeys: c.allow_team_api_keys,
        createTeamOnSignUp: c.create_team_on_sign_up,
        oauthAccountMergeStrategy: c.oauth_account_merge_strategy,
        oauthProviders: (c.oauth_providers ?? []).map((p: Json) => ({
          id: p.id,
          type: p.type,
          clientId: p.client_id,
          clientSecret: p.client_secret,
          facebookConfigId: p.facebook_config_id,
          microsoftTenantId: p.microsoft_tenant_id,
        })),
        domains: (c.domains ?? []).map((d: Json) => ({ domain: d.domain, handlerPath: d.handler_path })),
        emailConfig: c.email_config,
        emailTheme: c.email_theme,
        teamCreatorDefaultPermissions: perms(c.team_creator_default_permissions),
        teamMemberDefaultPermissions: perms(c.team_member_default_permissions),
        userDefaultPermissions: perms(c.user_default_permissions),
      },
      update: async (u) => {
        await this.admin("/internal/projects/current", { method: "PATCH", body: projectUpdateBody(u) });
        await this.caches.project.refresh([]).catch(() => {});
      },
      delete: async () => {
        await this.admin("/internal/projects/current", { method: "DELETE" });
      },
      transfer: async (user, newTeamId) => {
        // A call of the signed-in owner on the internal project (their team_admin in the current owner team and
        // membership of the new one are checked there), made with that user's own app and session.
        const owner = currentUserSessions.get(user);
        if (!owner) throw new Error(TRANSFER_NEEDS_INTERNAL_USER_MESSAGE);
        await owner.api.send("/internal/projects/transfer", { method: "POST", body: { project_id: json.id, new_team_id: newTeamId }, session: owner.session });
      },
      getConfig: async () => JSON.parse((await this.admin<{ config_string: string }>("/internal/config")).config_string) as Json,
      updateConfig: async (config) => {
        await this.admin("/internal/config/override", { method: "PATCH", body: { config_override_string: JSON.stringify(config) } });
      },
    };
  }

  // ---- internal API keys -------------------------------------------------------------------------------------

  async createInternalApiKey(options: InternalApiKeyCreateOptions): Promise<InternalApiKeyFirstView> {
    const json = await this.admin<Json>("/internal/api-keys", {
      method: "POST",
      body: {
        description: options.description,
        expires_at_millis: options.expiresAt.getTime(),
        has_publishable_client_key: options.hasPublishableClientKey,
        has_secret_server_key: options.hasSecretServerKey,
        has_super_secret_admin_key: options.hasSuperSecretAdminKey,
      },
    });
    return this.internalApiKeyFrom(json) as InternalApiKeyFirstView;
  }

  async listInternalApiKeys(): Promise<InternalApiKey[]> {
    return (await this.admin<{ items: Json[] }>("/internal/api-keys")).items.map((k) => this.internalApiKeyFrom(k) as InternalApiKey);
  }

  private internalApiKeyFrom(json: Json): InternalApiKey | InternalApiKeyFirstView {
    const key = (v: unknown) => (v == null ? null : typeof v === "string" ? v : { lastFour: (v as Json).last_four as string });
    return {
      ...keyFields(json, null),
      publishableClientKey: key(json.publishable_client_key),
      secretServerKey: key(json.secret_server_key),
      superSecretAdminKey: key(json.super_secret_admin_key),
      revoke: async () => {
        await this.admin(`/internal/api-keys/${json.id}`, { method: "PATCH", body: { revoked: true } });
      },
    } as InternalApiKey;
  }

  // ---- permission definitions --------------------------------------------------------------------------------

  private definitionFrom = (d: Json): PermissionDefinition => ({ id: d.id, description: d.description, containedPermissionIds: d.contained_permission_ids ?? [] });

  async listTeamPermissionDefinitions(): Promise<PermissionDefinition[]> {
    return (await this.admin<{ items: Json[] }>("/team-permission-definitions")).items.map(this.definitionFrom);
  }
  async createTeamPermissionDefinition(data: PermissionDefinitionCreateOptions): Promise<{ id: string }> {
    const d = await this.admin<Json>("/team-permission-definitions", { method: "POST", body: { id: data.id, description: data.description, contained_permission_ids: data.containedPermissionIds } });
    return { id: d.id };
  }
  async updateTeamPermissionDefinition(permissionId: string, data: Partial<Omit<PermissionDefinitionCreateOptions, "id">>): Promise<void> {
    await this.admin(`/team-permission-definitions/${encodeURIComponent(permissionId)}`, { method: "PATCH", body: { description: data.description, contained_permission_ids: data.containedPermissionIds } });
  }
  async deleteTeamPermissionDefinition(permissionId: string): Promise<void> {
    await this.admin(`/team-permission-definitions/${encodeURIComponent(permissionId)}`, { method: "DELETE" });
  }
  async listProjectPermissionDefinitions(): Promise<PermissionDefinition[]> {
    return (await this.admin<{ items: Json[] }>("/project-permission-definitions")).items.map(this.definitionFrom);
  }
  async createProjectPermissionDefinition(data: PermissionDefinitionCreateOptions): Promise<{ id: string }> {
    const d = await this.admin<Json>("/project-permission-definitions", { method: "POST", body: { id: data.id, description: data.description, contained_permission_ids: data.containedPermissionIds } });
    return { id: d.id };
  }
  async updateProjectPermissionDefinition(permissionId: string, data: Partial<Omit<PermissionDefinitionCreateOptions, "id">>): Promise<void> {
    await this.admin(`/project-permission-definitions/${encodeURIComponent(permissionId)}`, { method: "PATCH", body: { description: data.description, contained_permission_ids: data.containedPermissionIds } });
  }
  async deleteProjectPermissionDefinition(permissionId: string): Promise<void> {
    await this.admin(`/project-permission-definitions/${encodeURIComponent(permissionId)}`, { method: "DELETE" });
  }

  // ---- e-mail ------------------------------------------------------------------------------------------------

  async sendTestEmail(options: {
    recipientEmail: string;
    emailConfig: { host: string; port: number; username: string; password: string; senderEmail: string; senderName: string };
  }): Promise<Result<undefined, { errorMessage: string }>> {
    const c = options.emailConfig;
    const r = await this.admin<{ success: boolean; error_message?: string }>("/internal/send-test-email", {
      method: "POST",
      body: {
        recipient_email: options.recipientEmail,
        email_config: { host: c.host, port: c.port, username: c.username, password: c.password, sender_email: c.senderEmail, sender_name: c.senderName },
      },
    });
    return r.success ? Result.ok(undefined) : Result.error({ errorMessage: r.error_message ?? "" });
  }
  async sendSignInInvitationEmail(email: string, callbackUrl: string): Promise<void> {
    await this.admin("/internal/send-sign-in-invitation", { method: "POST", body: { email, callback_url: callbackUrl } });
  }
  async listSentEmails(): Promise<{ id: string; to: string[]; subject: string; sentAt: Date; error?: unknown }[]> {
    return (await this.admin<{ items: Json[] }>("/internal/emails")).items.map((e) => ({ id: e.id, to: e.to ?? [], subject: e.subject, sentAt: new Date(e.sent_at_millis), error: e.error }));
  }
  async listEmailThemes(): Promise<{ id: string; displayName: string }[]> {
    return (await this.admin<{ themes: Json[] }>("/internal/email-themes")).themes.map((t) => ({ id: t.id, displayName: t.display_name }));
  }
  /** One theme with its full TSX source (the list carries only ids and names). */
  async getEmailTheme(id: string): Promise<{ id: string; displayName: string; tsxSource: string }> {
    const t = await this.admin<Json>(`/internal/email-themes/${encodeURIComponent(id)}`);
    return { id, displayName: t.display_name, tsxSource: t.tsx_source };
  }
  async createEmailTheme(displayName: string): Promise<{ id: string }> {
    return this.admin("/internal/email-themes", { method: "POST", body: { display_name: displayName } });
  }
  async updateEmailTheme(id: string, tsxSource: string): Promise<void> {
    await this.admin(`/internal/email-themes/${id}`, { method: "PATCH", body: { tsx_source: tsxSource } });
  }
  /** `themeId`: the template's theme, false for none, undefined for the project's theme. */
  async listEmailTemplates(): Promise<{ id: string; displayName: string; themeId?: string | false; tsxSource: string }[]> {
    return (await this.admin<{ templates: Json[] }>("/internal/email-templates")).templates.map((t) => ({ id: t.id, displayName: t.display_name, themeId: t.theme_id, tsxSource: t.tsx_source }));
  }
  async createEmailTemplate(displayName: string): Promise<{ id: string }> {
    return this.admin("/internal/email-templates", { method: "POST", body: { display_name: displayName } });
  }
  async updateEmailTemplate(id: string, tsxSource: string, themeId: string | null | false): Promise<{ renderedHtml: string }> {
    const r = await this.admin<{ rendered_html: string }>(`/internal/email-templates/${id}`, { method: "PATCH", body: { tsx_source: tsxSource, theme_id: themeId } });
    return { renderedHtml: r.rendered_html };
  }
  async listEmailDrafts(): Promise<{ id: string; displayName: string; themeId: string | undefined | false; tsxSource: string; sentAt: Date | null }[]> {
    return (await this.admin<{ drafts: Json[] }>("/internal/email-drafts")).drafts.map((d) => ({
      id: d.id,
      displayName: d.display_name,
      themeId: d.theme_id,
      tsxSource: d.tsx_source,
      sentAt: d.sent_at_millis == null ? null : new Date(d.sent_at_millis),
    }));
  }
  async createEmailDraft(options: { displayName: string; themeId?: string | false; tsxSource?: string }): Promise<{ id: string }> {
    return this.admin("/internal/email-drafts", { method: "POST", body: { display_name: options.displayName, theme_id: options.themeId, tsx_source: options.tsxSource } });
  }
  async updateEmailDraft(id: string, data: { displayName?: string; themeId?: string | false; tsxSource?: string }): Promise<void> {
    await this.admin(`/internal/email-drafts/${id}`, { method: "PATCH", body: { display_name: data.displayName, theme_id: data.themeId, tsx_source: data.tsxSource } });
  }
  async getEmailPreview(options: { themeId?: string | null | false; themeTsxSource?: string; templateId?: string; templateTsxSource?: string }): Promise<string> {
    return (await this.renderEmail(options)).html;
  }
  /** The rendered HTML with the subject its template declares, if any (POST /emails/render-email). */
  renderEmail(options: { themeId?: string | null | false; themeTsxSource?: string; templateId?: string; templateTsxSource?: string }): Promise<{ html: string; subject?: string }> {
    return this.admin("/emails/render-email", {
      method: "POST",
      body: { theme_id: options.themeId, theme_tsx_source: options.themeTsxSource, template_id: options.templateId, template_tsx_source: options.templateTsxSource },
    });
  }

  // ---- payments ----------------------------------------------------------------------------------------------

  async setupPayments(): Promise<{ url: string }> {
    return this.admin("/internal/payments/setup", { method: "POST", body: {} });
  }
  /** Null when the project has no Stripe account yet (STRIPE_ACCOUNT_INFO_NOT_FOUND). */
  async getStripeAccountInfo(): Promise<{ account_id: string; charges_enabled: boolean; details_submitted: boolean; payouts_enabled: boolean } | null> {
    try {
      return await this.admin("/internal/payments/stripe/account-info");
    } catch (err) {
      if (KnownErrors.StripeAccountInfoNotFound.isInstance(err)) return null;
      throw err;
    }
  }
  async createStripeWidgetAccountSession(): Promise<{ client_secret: string }> {
    return this.admin("/internal/payments/stripe-widgets/account-session", { method: "POST", body: {} });
  }
  async listTransactions(options: { cursor?: string; limit?: number; type?: "subscription" | "one_time" | "item_quantity_change"; customerType?: "user" | "team" | "custom" } = {}): Promise<{ transactions: Json[]; nextCursor: string | null }> {
    const r = await this.admin<{ transactions: Json[]; next_cursor: string | null }>("/internal/payments/transactions", {
      query: { cursor: options.cursor, limit: options.limit, type: options.type, customer_type: options.customerType },
    });
    return { transactions: r.transactions, nextCursor: r.next_cursor };
  }
  async createItemQuantityChange(
    options: ({ userId: string } | { teamId: string } | { customCustomerId: string }) & { itemId: string; quantity: number; expiresAt?: string; description?: string },
  ): Promise<void> {
    const o = options as Partial<{ userId: string; teamId: string; customCustomerId: string }>;
    const given = [o.userId, o.teamId, o.customCustomerId].filter((x) => x !== undefined).length;
    if (given !== 1) throw new Error("updateItemQuantity requires one of userId, teamId, or customCustomerId");
    const [type, id] = o.userId !== undefined ? ["user", o.userId] : o.teamId !== undefined ? ["team", o.teamId] : ["custom", o.customCustomerId!];
    await this.admin(`/payments/items/${type}/${encodeURIComponent(id)}/${encodeURIComponent(options.itemId)}/update-quantity`, {
      method: "POST",
      query: { allow_negative: "true" },
      body: { delta: options.quantity, expires_at: options.expiresAt, description: options.description },
    });
    // A later getItem must see the change (as ServerItem.increaseQuantity does).
    await this.caches.items.refresh([null, type, id, options.itemId]).catch(() => {});
  }
  async testModePurchase(options: { priceId: string; fullCode: string; quantity?: number }): Promise<void> {
    await this.admin("/internal/payments/test-mode-purchase-session", { method: "POST", body: { price_id: options.priceId, full_code: options.fullCode, quantity: options.quantity } });
  }

  // ---- AI chat (e-mail editor) -------------------------------------------------------------------------------

  async sendChatMessage(threadId: string, contextType: "email-theme" | "email-template" | "email-draft", messages: { role: string; content: unknown }[]): Promise<{ content: unknown }> {
    return this.admin(`/internal/ai-chat/${threadId}`, { method: "POST", body: { context_type: contextType, messages } });
  }
  async saveChatMessage(threadId: string, message: unknown): Promise<void> {
    await this.admin(`/internal/ai-chat/${threadId}`, { method: "PATCH", body: { message } });
  }
  async listChatMessages(threadId: string): Promise<{ messages: unknown[] }> {
    return this.admin(`/internal/ai-chat/${threadId}`);
  }
}

declare module "./types/admin.ts" {
  /** An owned project's `app` is this class (types/admin.ts declares the interface without importing this module). */
  interface OwnedProjectAdminApp extends StackAdminApp {}
}

/** @internal An owned project with its admin app acting as the owner (client-app.ts loads this with `import()`). */
export function ownedProjectFrom({ json, session, options }: OwnedProjectSource): AdminOwnedProject {
  const app = new StackAdminApp({
    baseUrl: options.baseUrl,
    projectId: json.id as string,
    projectOwnerSession: session,
    extraRequestHeaders: options.extraRequestHeaders,
    fetch: options.fetch,
    tokenStore: null,
    noAutomaticPrefetch: true,
  } as StackAdminAppConstructorOptions);
  return Object.assign(app.adminProjectFrom(json), { app });
}
