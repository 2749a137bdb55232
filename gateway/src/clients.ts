import { ConnectError, type Client } from "@connectrpc/connect";
import { createServiceClient } from "@vestibule/shared/rpc";
import { ProjectService } from "@vestibule/proto/identity/v1/project_service";
import { ApiKeySetService } from "@vestibule/proto/identity/v1/api_key_service";
import { UserService } from "@vestibule/proto/identity/v1/user_service";
import { ContactChannelService } from "@vestibule/proto/identity/v1/contact_channel_service";
import { AiChatService } from "@vestibule/proto/identity/v1/ai_chat_service";
import { AccountService } from "@vestibule/proto/auth/v1/account_service";
import { SessionService } from "@vestibule/proto/auth/v1/session_service";
import { PasswordService } from "@vestibule/proto/auth/v1/password_service";
import { VerificationService } from "@vestibule/proto/auth/v1/verification_service";
import { TeamService } from "@vestibule/proto/teams_permissions/v1/team_service";
import { TeamMembershipService } from "@vestibule/proto/teams_permissions/v1/team_membership_service";
import { PermissionService } from "@vestibule/proto/teams_permissions/v1/permission_service";
import { PermissionDefinitionService } from "@vestibule/proto/teams_permissions/v1/permission_definition_service";
import { TeamInvitationService } from "@vestibule/proto/teams_permissions/v1/invitation_service";
import { ApiKeyService } from "@vestibule/proto/auth/v1/api_key_service";
import { MfaService } from "@vestibule/proto/auth/v1/mfa_service";
import { CliLoginService } from "@vestibule/proto/auth/v1/cli_login_service";
import { DataVaultService } from "@vestibule/proto/vault/v1/data_vault_service";
import { OtpService } from "@vestibule/proto/auth/v1/otp_service";
import { PasskeyService } from "@vestibule/proto/auth/v1/passkey_service";
import { OAuthService } from "@vestibule/proto/auth/v1/oauth_service";
import { EmailService } from "@vestibule/proto/email/v1/email_service";
import { EmailTemplateService } from "@vestibule/proto/email/v1/template_service";
import { NotificationPreferenceService } from "@vestibule/proto/email/v1/notification_preference_service";
import { WebhookService } from "@vestibule/proto/email/v1/webhook_service";
import { AnalyticsService } from "@vestibule/proto/analytics/v1/analytics_service";
import { ItemService } from "@vestibule/proto/billing/v1/item_service";
import { PurchaseService } from "@vestibule/proto/billing/v1/purchase_service";
import { StripeService } from "@vestibule/proto/billing/v1/stripe_service";
import { AuditService } from "@vestibule/proto/audit/v1/audit_service";
import type { GatewayConfig } from "./config.ts";

/** RPC clients of the services, one shared HTTP/2 connection per service. */
export interface ServiceClients {
  readonly projects: Client<typeof ProjectService>;
  readonly apiKeySets: Client<typeof ApiKeySetService>;
  readonly users: Client<typeof UserService>;
  readonly contactChannels: Client<typeof ContactChannelService>;
  readonly aiChat: Client<typeof AiChatService>;
  readonly accounts: Client<typeof AccountService>;
  readonly sessions: Client<typeof SessionService>;
  readonly passwords: Client<typeof PasswordService>;
  readonly verification: Client<typeof VerificationService>;
  readonly teams: Client<typeof TeamService>;
  readonly teamMembers: Client<typeof TeamMembershipService>;
  readonly permissions: Client<typeof PermissionService>;
  readonly permissionDefinitions: Client<typeof PermissionDefinitionService>;
  readonly teamInvitations: Client<typeof TeamInvitationService>;
  readonly apiKeys: Client<typeof ApiKeyService>;
  readonly mfa: Client<typeof MfaService>;
  readonly cliLogins: Client<typeof CliLoginService>;
  readonly dataVault: Client<typeof DataVaultService>;
  readonly otp: Client<typeof OtpService>;
  readonly passkeys: Client<typeof PasskeyService>;
  readonly oauth: Client<typeof OAuthService>;
  readonly emails: Client<typeof EmailService>;
  readonly emailTemplates: Client<typeof EmailTemplateService>;
  readonly notificationPreferences: Client<typeof NotificationPreferenceService>;
  readonly analytics: Client<typeof AnalyticsService>;
  readonly items: Client<typeof ItemService>;
  readonly purchases: Client<typeof PurchaseService>;
  readonly stripe: Client<typeof StripeService>;
  readonly webhooks: Client<typeof WebhookService>;
  readonly audit: Client<typeof AuditService>;
}

/**
 * Marks RPC failures with the service they were addressed to, so a service that is down is answered with a
 * plain-text 503 naming it (see http/replies.ts).
 */
function tagged<T extends object>(client: T, service: string): T {
  return new Proxy(client, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof value !== "function") return value;
      return async (...args: unknown[]) => {
        try {
          return await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        } catch (err) {
          if (err instanceof ConnectError) Object.assign(err, { service });
          throw err;
        }
      };
    },
  });
}

export function createServiceClients(config: GatewayConfig): ServiceClients {
  const base = { caller: "gateway", secret: config.serviceSecret };
  const identity = { ...base, baseUrl: config.identityUrl };
  const auth = { ...base, baseUrl: config.authUrl };
  const teams = { ...base, baseUrl: config.teamsPermissionsUrl };
  const email = { ...base, baseUrl: config.emailUrl };
  return {
    projects: tagged(createServiceClient(ProjectService, identity), "identity"),
    apiKeySets: tagged(createServiceClient(ApiKeySetService, identity), "identity"),
    users: tagged(createServiceClient(UserService, identity), "identity"),
    contactChannels: tagged(createServiceClient(ContactChannelService, identity), "identity"),
    aiChat: tagged(createServiceClient(AiChatService, identity), "identity"),
    accounts: tagged(createServiceClient(AccountService, auth), "auth"),
    sessions: tagged(createServiceClient(SessionService, auth), "auth"),
    passwords: tagged(createServiceClient(PasswordService, auth), "auth"),
    verification: tagged(createServiceClient(VerificationService, auth), "auth"),
    teams: tagged(createServiceClient(TeamService, teams), "teams_permissions"),
    teamMembers: tagged(createServiceClient(TeamMembershipService, teams), "teams_permissions"),
    permissions: tagged(createServiceClient(PermissionService, teams), "teams_permissions"),
    permissionDefinitions: tagged(createServiceClient(PermissionDefinitionService, teams), "teams_permissions"),
    teamInvitations: tagged(createServiceClient(TeamInvitationService, teams), "teams_permissions"),
    apiKeys: tagged(createServiceClient(ApiKeyService, auth), "auth"),
    mfa: tagged(createServiceClient(MfaService, auth), "auth"),
    cliLogins: tagged(createServiceClient(CliLoginService, auth), "auth"),
    dataVault: tagged(createServiceClient(DataVaultService, { ...base, baseUrl: config.vaultUrl }), "vault"),
    otp: tagged(createServiceClient(OtpService, auth), "auth"),
    passkeys: tagged(createServiceClient(PasskeyService, auth), "auth"),
    oauth: tagged(createServiceClient(OAuthService, auth), "auth"),
    emails: tagged(createServiceClient(EmailService, email), "email"),
    emailTemplates: tagged(createServiceClient(EmailTemplateService, email), "email"),
    notificationPreferences: tagged(createServiceClient(NotificationPreferenceService, email), "email"),
    analytics: tagged(createServiceClient(AnalyticsService, identity), "identity"),
    items: tagged(createServiceClient(ItemService, { ...base, baseUrl: config.billingUrl }), "billing"),
    purchases: tagged(createServiceClient(PurchaseService, { ...base, baseUrl: config.billingUrl }), "billing"),
    stripe: tagged(createServiceClient(StripeService, { ...base, baseUrl: config.billingUrl }), "billing"),
    webhooks: tagged(createServiceClient(WebhookService, email), "email"),
    audit: tagged(createServiceClient(AuditService, identity), "identity"),
  };
}
