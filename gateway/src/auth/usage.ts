import type { Logger } from "@vestibule/shared/log";
import type { ServiceClients } from "../clients.ts";

/**
 * Session and user activity seen by this gateway, sent in batches every `intervalMs` instead of a write per request:
 * auth keeps `last_used_at` (and its IP) per session, identity keeps `last_active_at` and active-user metrics.
 */
export class UsageRecorder {
  private sessions = new Map<string, { projectId: string; sessionId: string; at: number; ip: string }>();
  private users = new Map<string, { projectId: string; userId: string; at: number; ip: string }>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly clients: Pick<ServiceClients, "sessions" | "users">,
    private readonly log: Logger,
    intervalMs = 10_000,
  ) {
    this.timer = setInterval(() => void this.flush(), intervalMs);
    this.timer.unref();
  }

  record(projectId: string, userId: string, sessionId: string, ip: string): void {
    const at = Date.now();
    if (sessionId) this.sessions.set(`${projectId}|${sessionId}`, { projectId, sessionId, at, ip });
    this.users.set(`${projectId}|${userId}`, { projectId, userId, at, ip });
  }

  async flush(): Promise<void> {
    const sessions = [...this.sessions.values()];
    const users = [...this.users.values()];
    this.sessions = new Map();
    this.users = new Map();
    await Promise.all([
      sessions.length
        ? this.clients.sessions
            .touchSessions({ touches: sessions.map((s) => ({ projectId: s.projectId, sessionId: s.sessionId, atMillis: BigInt(s.at), ip: s.ip })) })
            .catch((err: unknown) => this.log.warn({ err: (err as Error).message }, "could not record session use"))
        : undefined,
      users.length
        ? this.clients.users
            .recordActivity({ activities: users.map((u) => ({ projectId: u.projectId, userId: u.userId, atMillis: BigInt(u.at), ip: u.ip })) })
            .catch((err: unknown) => this.log.warn({ err: (err as Error).message }, "could not record user activity"))
        : undefined,
    ]);
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}
