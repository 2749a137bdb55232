import { PayloadSealer } from "@vestibule/shared/secrets";
import type { ServiceContext } from "@vestibule/shared/service";
import { readEmailConfig, type EmailConfig } from "./config.ts";
import type { DeliveryQueue, SharedSender } from "./delivery.ts";
import { createIdentityClients, type IdentityClients } from "./peers.ts";
import { ProjectSettingsCache } from "./project-settings.ts";
import { DEFAULT_TEMPLATES, DEFAULT_THEMES } from "./defaults/index.ts";
import { EmailRenderer } from "./render/renderer.ts";
import { EmailRequests } from "./requests.ts";
import { ProjectTemplates } from "./templates.ts";

/** Everything the e-mail service's RPCs and consumers share, built once per service instance. */
export interface EmailRuntime {
  readonly ctx: ServiceContext;
  readonly config: EmailConfig;
  readonly identity: IdentityClients;
  readonly settings: ProjectSettingsCache;
  readonly templates: ProjectTemplates;
  readonly renderer: EmailRenderer;
  readonly requests: EmailRequests;
  /** Opens the sealed content of e-mail requests (EmailRequested.sealed_content). */
  readonly sealer: PayloadSealer;
  /** Set by the start hook. */
  delivery: DeliveryQueue | undefined;
  /** The platform's shared sender (the dev mailbox in development); set by the start hook. */
  shared: SharedSender | undefined;
}

const runtimes = new WeakMap<ServiceContext, EmailRuntime>();

/** The runtime of a service context (created on first use; `start` and `routes` get the same one). */
export function emailRuntime(ctx: ServiceContext): EmailRuntime {
  let rt = runtimes.get(ctx);
  if (rt) return rt;
  const config = readEmailConfig(ctx.env);
  const identity = createIdentityClients(ctx);
  const renderer = new EmailRenderer({
    workers: config.renderWorkers,
    timeoutMs: config.renderTimeoutMs,
    memoryMb: config.renderMemoryMb,
    log: ctx.log,
    platformSources: [...DEFAULT_TEMPLATES, ...DEFAULT_THEMES].map((d) => d.tsxSource),
  });
  const partial = {
    ctx,
    config,
    identity,
    settings: new ProjectSettingsCache(identity.projects),
    templates: new ProjectTemplates(ctx.pool),
    renderer,
    sealer: new PayloadSealer(ctx.config.masterKeys),
    delivery: undefined,
    shared: undefined,
  };
  const full = partial as unknown as EmailRuntime;
  (full as { requests: EmailRequests }).requests = new EmailRequests(full);
  runtimes.set(ctx, full);
  return full;
}
