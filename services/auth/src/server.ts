import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { AccountService } from "@vestibule/proto/auth/v1/account_service";
import { OtpService } from "@vestibule/proto/auth/v1/otp_service";
import { OAuthService } from "@vestibule/proto/auth/v1/oauth_service";
import { PasswordService } from "@vestibule/proto/auth/v1/password_service";
import { SessionService } from "@vestibule/proto/auth/v1/session_service";
import { VerificationService } from "@vestibule/proto/auth/v1/verification_service";
import { ApiKeyService } from "@vestibule/proto/auth/v1/api_key_service";
import { CliLoginService } from "@vestibule/proto/auth/v1/cli_login_service";
import { MfaService } from "@vestibule/proto/auth/v1/mfa_service";
import { PasskeyService } from "@vestibule/proto/auth/v1/passkey_service";
import { preloadGeoIp } from "@vestibule/shared/geoip";
import { lazyService } from "@vestibule/shared/rpc";
import type { ServiceDefinition } from "@vestibule/shared/service";
import { createAccountService } from "./users/account-service.ts";
import { startJanitor } from "./janitor.ts";
import { createOtpService } from "./codes/otp-service.ts";
import { createOAuthService } from "./oauth/service.ts";
import { oauthRuntime } from "./oauth/runtime.ts";
import { startUserLinkImport } from "./oauth/user-links.ts";
import { createPasswordService } from "./passwords/password-service.ts";
import { authRuntime } from "./runtime.ts";
import { createSessionService } from "./sessions/session-service.ts";
import { startUserEventConsumers } from "./users/user-events.ts";
import { createVerificationService } from "./codes/verification-service.ts";
import { createApiKeyService } from "./api-keys/api-key-service.ts";
import { createCliLoginService } from "./cli/cli-login-service.ts";
import { createMfaService } from "./mfa/mfa-service.ts";
import { securityRuntime, startSecurity } from "./security-runtime.ts";

/**
 * The auth service: credentials (argon2id passwords, imported bcrypt hashes), sessions and refresh tokens, ES256
 * access tokens and their per-project signing keys, one-time codes (password reset, e-mail verification),
 * brute-force protection, user and team API keys, TOTP multi-factor authentication, CLI login, impersonation tickets
 * (sessions/impersonation-tickets.ts), magic-link / one-time-code sign-in (otp-service.ts), passkeys (passkeys/), OAuth sign-in, linked provider accounts and
 * connected-account tokens (oauth/). Users themselves live in identity, which it calls; it asks
 * teams-permissions who manages a team's API keys (team-directory.ts); it consumes
 * identity.user.created/updated/deleted.v1 and teams_permissions.team.deleted.v1 and publishes
 * auth.email.requested.v1, auth.session.revoked.v1, auth.signing_key.rotated.v1 and auth.api_key.{updated,deleted}.v1.
 */
export const authService: ServiceDefinition = {
  name: "auth",
  migrationsDir: join(dirname(fileURLToPath(import.meta.url)), "..", "migrations"),
  serviceNames: [
    SessionService.typeName,
    PasswordService.typeName,
    VerificationService.typeName,
    ApiKeyService.typeName,
    MfaService.typeName,
    CliLoginService.typeName,
    OtpService.typeName,
    AccountService.typeName,
    PasskeyService.typeName,
    OAuthService.typeName,
  ],
  routes(router, ctx) {
    const rt = authRuntime(ctx);
    router.service(SessionService, createSessionService(rt));
    router.service(PasswordService, createPasswordService(rt));
    router.service(VerificationService, createVerificationService(rt));
    const sec = securityRuntime(rt);
    router.service(ApiKeyService, createApiKeyService(rt, sec));
    router.service(MfaService, createMfaService(rt, sec));
    router.service(CliLoginService, createCliLoginService(rt));
    router.service(OtpService, createOtpService(rt));
    router.service(AccountService, createAccountService(rt));
    // Loaded at the first passkey call: WebAuthn's libraries cost ~22 MB and ~0.4 s at every start (issue 20).
    router.service(PasskeyService, lazyService(PasskeyService, async () => (await import("./passkeys/passkey-service.ts")).createPasskeyService(rt)));
    router.service(OAuthService, createOAuthService(rt));
  },
  async start(ctx) {
    const rt = authRuntime(ctx);
    // Opens the geo-IP data files (nothing is loaded): a missing file fails the start, not a session.
    preloadGeoIp();
    await rt.hasher.warmUp();
    const stops: (() => Promise<void>)[] = [];
    try {
      const projectEvents = await rt.settings.subscribe(ctx.bus);
      stops.push(() => projectEvents.stop());
      const oauthProjectEvents = await oauthRuntime(rt).settings.subscribe(ctx.bus);
      stops.push(() => oauthProjectEvents.stop());
      const linkImport = await startUserLinkImport(rt);
      stops.push(() => linkImport.stop());
      const keyEvents = await rt.keys.subscribe(ctx.bus);
      stops.push(() => keyEvents.stop());
      stops.push(await startUserEventConsumers(ctx));
      stops.push(startJanitor(ctx));
      stops.push(await startSecurity(rt));
    } catch (err) {
      for (const stop of stops.reverse()) await stop().catch(() => {});
      throw err;
    }
    return async () => {
      for (const stop of stops.reverse()) await stop().catch((err) => ctx.log.warn({ err }, "auth stop step failed"));
    };
  },
};
