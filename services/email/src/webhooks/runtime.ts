import { ProjectConfigCache } from "@vestibule/shared/project-config";
import { requiresEmailVerification } from "@vestibule/shared/restriction";
import type { UserViewProject } from "@vestibule/shared/views";
import type { EmailRuntime } from "../runtime.ts";
import { egressAllowList } from "../smtp.ts";
import { readWebhookConfig, retrySchedule, type WebhookConfig } from "./config.ts";
import type { WebhookDelivery } from "./delivery.ts";

/** What the webhook capability's RPCs and consumers share, built once per service instance. */
export interface WebhookRuntime {
  readonly config: WebhookConfig;
  readonly schedule: readonly number[];
  /** The project facts the user view needs (email-verification rule), per project, dropped by project events. */
  readonly userViewProjects: ProjectConfigCache<UserViewProject>;
  /** Set by the start hook. */
  delivery: WebhookDelivery | undefined;
}

const runtimes = new WeakMap<EmailRuntime, WebhookRuntime>();

export function webhookRuntime(rt: EmailRuntime): WebhookRuntime {
  let wh = runtimes.get(rt);
  if (wh) return wh;
  const config = readWebhookConfig(rt.ctx.env);
  wh = {
    config,
    schedule: retrySchedule(config),
    userViewProjects: new ProjectConfigCache(rt.identity.projects, (p) => ({
      requireEmailVerification: requiresEmailVerification(p.renderedConfigJson ? (JSON.parse(p.renderedConfigJson) as unknown) : null),
    })),
    delivery: undefined,
  };
  runtimes.set(rt, wh);
  return wh;
}

export const webhookAllowList = (rt: EmailRuntime) => egressAllowList(rt.config.egressAllow);
