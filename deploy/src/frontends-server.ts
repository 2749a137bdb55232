/**
 * The frontends on one port (8101 for `npm start`): builds them first when their sources changed
 * (frontends/build-config/src/build.ts), then serves the hosted handler pages under /handler, the dashboard at /,
 * the remotes under /remotes/<name>/, the example host under /example/, and the run-time documents /config.json
 * (gateway URL, project ids and publishable keys, set once the projects are bootstrapped) and /remotes.json.
 *
 * Development only: the dev mailbox, `GET /dev/mailbox` (JSON, `?to=&project_id=&limit=`; the dashboard's e-mail area
 * lists a project's messages from it) and `GET /dev/mailbox/view` (a page with clickable links), from the e-mail
 * service's MailboxService (deploy/src/dev-mailbox-http.ts).
 */
import type http from "node:http";
import { ensureFrontendsBuilt } from "@vestibule/build-config/build";
import { startFrontendsServer, type FrontendsServer } from "@vestibule/build-config/static-server";
import type { RuntimeConfig } from "@vestibule/build-config/apps";
import { handleDevMailbox } from "./dev-mailbox-http.ts";

export interface FrontendsOptions {
  readonly port: number;
  readonly host: string;
  /** Public URL of the gateway (what browsers call). */
  readonly publicUrl: string;
  readonly mode: "development" | "production";
  /** For the dev mailbox (gRPC MailboxService of the e-mail service). */
  readonly emailServiceUrl: string;
  readonly serviceSecret: string;
  /** Stripe.js for the purchase page (from STRIPE_JS_URL / STRIPE_PUBLISHABLE_KEY); omitted when unset. */
  readonly stripe?: { readonly jsUrl: string; readonly publishableKey: string };
  /** Build when sources changed (default true). */
  readonly build?: boolean;
  readonly log?: (line: string) => void;
}

export interface ProjectKeysForFrontends {
  readonly project_id: string;
  readonly publishable_client_key: string;
}

export interface Frontends {
  readonly server: FrontendsServer;
  /** Injects the projects into /config.json: the dashboard's `internal` and the one the handler pages serve. */
  configure(projects: { internal: ProjectKeysForFrontends; handler: ProjectKeysForFrontends }): void;
  close(): Promise<void>;
}

export async function startFrontends(options: FrontendsOptions): Promise<Frontends> {
  if (options.build ?? true) await ensureFrontendsBuilt({ log: options.log });

  const devMailbox = async (req: http.IncomingMessage, res: http.ServerResponse, path: string): Promise<boolean> => {
    if (options.mode !== "development" || !path.startsWith("/dev/mailbox")) return false;
    // A dashboard area run alone (npm run dev) reads it from another origin.
    res.setHeader("access-control-allow-origin", "*");
    return handleDevMailbox(req, res, { baseUrl: options.emailServiceUrl, secret: options.serviceSecret });
  };

  const server = await startFrontendsServer({ port: options.port, host: options.host, extraRoutes: [devMailbox] });
  return {
    server,
    configure(projects) {
      const config: RuntimeConfig = {
        apiUrl: options.publicUrl,
        internalProjectId: projects.internal.project_id,
        internalPublishableClientKey: projects.internal.publishable_client_key,
        handlerProjectId: projects.handler.project_id,
        handlerPublishableClientKey: projects.handler.publishable_client_key,
        mode: options.mode,
        ...(options.stripe ? { stripe: options.stripe } : {}),
      };
      server.setConfig(config);
    },
    close: () => server.close(),
  };
}
