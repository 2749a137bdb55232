import type { ServiceContext } from "@vestibule/shared/service";
import { AccessTokens } from "./signing/access-tokens.ts";
import { readAuthConfig, type AuthConfig } from "./config.ts";
import { locateIp } from "./sessions/ip-info.ts";
import { Mailer } from "./mailer.ts";
import { PasswordHasher } from "./passwords/password-hasher.ts";
import { createIdentityClients, type IdentityClients } from "./peers.ts";
import { ProjectSettingsCache } from "./project-settings.ts";
import { RateLimiter } from "@vestibule/shared/rate-limit";
import { Sessions } from "./sessions/sessions.ts";
import { SigningKeys } from "./signing/signing-keys.ts";
import { VerificationCodes } from "./codes/verification-codes.ts";

/** Everything the auth service's RPCs and consumers share, built once per service instance. */
export interface AuthRuntime {
  readonly ctx: ServiceContext;
  readonly config: AuthConfig;
  readonly identity: IdentityClients;
  readonly settings: ProjectSettingsCache;
  readonly keys: SigningKeys;
  readonly tokens: AccessTokens;
  readonly sessions: Sessions;
  readonly hasher: PasswordHasher;
  readonly limiter: RateLimiter;
  readonly codes: VerificationCodes;
  readonly mailer: Mailer;
}

const runtimes = new WeakMap<ServiceContext, AuthRuntime>();

/**
 * The runtime of a service context (created on first use; `start` and `routes` get the same one). It takes no options:
 * a cached runtime cannot silently ignore a second caller's different options (issue 22).
 */
export function authRuntime(ctx: ServiceContext): AuthRuntime {
  let rt = runtimes.get(ctx);
  if (rt) return rt;
  const config = readAuthConfig(ctx.env);
  const identity = createIdentityClients(ctx);
  const settings = new ProjectSettingsCache(identity);
  const keys = new SigningKeys({ pool: ctx.pool, secrets: ctx.secrets, outbox: ctx.outbox });
  const tokens = new AccessTokens(keys, ctx.config.publicUrl);
  const limiter = new RateLimiter(ctx.pool, config, {
    mode: ctx.config.mode,
    ipFailuresPerDay: async (projectId) => (await settings.get(projectId)).ipFailuresPerDay,
  });
  const sessions = new Sessions({
    pool: ctx.pool,
    outbox: ctx.outbox,
    log: ctx.log,
    tokens,
    settings,
    identity,
    locateIp,
  });
  rt = {
    ctx,
    config,
    identity,
    settings,
    keys,
    tokens,
    sessions,
    hasher: new PasswordHasher(),
    limiter,
    codes: new VerificationCodes({ pool: ctx.pool, limiter }),
    mailer: new Mailer(ctx.outbox, ctx.config.masterKeys),
  };
  runtimes.set(ctx, rt);
  return rt;
}
