/**
 * The frontends on one port (8101 for `npm start`): builds them first when their sources changed
 * (frontends/build-config/src/build.ts), then serves the hosted handler pages under /handler, the dashboard at /,
 * the remotes under /remotes/<name>/, the example host under /example/, and the run-time documents /config.json
 * (gateway URL, project ids and publishable keys, set once the projects are bootstrapped) and /remotes.json.
 *
 * Development only: `GET /dev-mailbox/messages` lists the dev mailbox of one project for the dashboard. The caller
 * proves admin rights on that project with the same headers the dashboard sends to the API (project id plus an
 * owner's admin access token or the admin key); they are checked by asking the gateway for the project.
 */
import type http from "node:http";
import { ensureFrontendsBuilt } from "@vestibule/build-config/build";
import { startFrontendsServer, type FrontendsServer } from "@vestibule/build-config/static-server";
import type { RuntimeConfig } from "@vestibule/build-config/apps";
import { listMailbox } from "./dev-mailbox.ts";

export interface FrontendsOptions {
  readonly port: number;
  readonly host: string;
  /** Public URL of the gateway (what browsers call). */
  readonly publicUrl: string;
  /** Where this process reaches the gateway (admin checks of the dev mailbox). */
  readonly gatewayUrl: string;
  readonly mode: "development" | "production";
  /** For the dev mailbox listing (gRPC MailboxService of the e-mail service). */
  readonly emailServiceUrl: string;
  readonly serviceSecret: string;
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

const ADMIN_HEADERS = ["x-stack-project-id", "x-stack-admin-access-token", "x-stack-super-secret-admin-key"] as const;

function json(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", "cache-control": "no-store", "access-control-allow-origin": "*" });
  res.end(JSON.stringify(body));
}

export async function startFrontends(options: FrontendsOptions): Promise<Frontends> {
  if (options.build ?? true) await ensureFrontendsBuilt({ log: options.log });

  const devMailbox = async (req: http.IncomingMessage, res: http.ServerResponse, path: string): Promise<boolean> => {
    if (path !== "/dev-mailbox/messages") return false;
    if (req.method === "OPTIONS") {
      res.writeHead(204, {
        "access-control-allow-origin": "*",
        "access-control-allow-methods": "GET",
        "access-control-allow-headers": ADMIN_HEADERS.join(", "),
      }).end();
      return true;
    }
    if (options.mode !== "development") {
      json(res, 404, { error: "The dev mailbox exists only in development mode." });
      return true;
    }
    const projectId = req.headers["x-stack-project-id"];
    if (typeof projectId !== "string" || !projectId) {
      json(res, 401, { error: "Send x-stack-project-id with an admin access token or admin key." });
      return true;
    }
    const headers: Record<string, string> = { "x-stack-access-type": "admin" };
    for (const h of ADMIN_HEADERS) {
      const v = req.headers[h];
      if (typeof v === "string" && v) headers[h] = v;
    }
    const check = await fetch(`${options.gatewayUrl}/api/v1/internal/projects/current`, { headers });
    if (!check.ok) {
      const body = await check.text();
      res.writeHead(check.status, { "content-type": check.headers.get("content-type") ?? "text/plain", "access-control-allow-origin": "*" }).end(body);
      return true;
    }
    await check.arrayBuffer();
    const to = new URL(req.url ?? "/", "http://x").searchParams.get("to") ?? undefined;
    const messages = await listMailbox({ baseUrl: options.emailServiceUrl, secret: options.serviceSecret, projectId, to, limit: 100 });
    json(res, 200, {
      items: messages.map((m) => ({
        id: m.id,
        to: m.to,
        subject: m.subject,
        html: m.html,
        text: m.text,
        created_at_millis: Number(m.createdAtMillis),
        template: m.template,
        status: m.status,
        error: m.error || null,
      })),
    });
    return true;
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
      };
      server.setConfig(config);
    },
    close: () => server.close(),
  };
}
