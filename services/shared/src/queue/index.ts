/**
 * A work queue in a PostgreSQL table, shared by every replica: `ClaimPump` claims due rows (the caller's `claim`, with
 * FOR UPDATE SKIP LOCKED and a lease, so a replica killed mid-job loses nothing), runs each with `handle`, and looks
 * again when one finishes, when `NOTIFY <channel>` says a row was queued, and every `pollMs` for retries that fall due.
 * At most `concurrency` jobs run at once per replica and at most `groupLimit` of one group (a project, an endpoint), so
 * one slow or failing destination holds up only its own group. Used by the e-mail delivery queue and webhook delivery.
 */
import pg from "pg";
import type { Logger } from "../log/index.ts";

export interface ClaimPumpOptions<T> {
  /** For logs: "e-mail queue", "webhook queue". */
  readonly name: string;
  /** The NOTIFY channel that says a row was queued. */
  readonly channel: string;
  readonly connectionString: string;
  readonly log: Logger;
  readonly pollMs: number;
  readonly concurrency: number;
  readonly groupLimit: number;
  /** Claims at most `limit` due rows, none of a group in `busyGroups` (they are at their limit here). */
  readonly claim: (limit: number, busyGroups: string[]) => Promise<readonly T[]>;
  readonly groupOf: (item: T) => string;
  /**
   * Gives a claimed row back at once when its group is already at its limit in this replica (rather than at the end
   * of its lease); without it, every claimed row runs.
   */
  readonly release?: (item: T) => Promise<void>;
  /** Runs one job; it records its own outcome and never throws (a failure to record is its own to log). */
  readonly handle: (item: T) => Promise<void>;
}

export class ClaimPump<T> {
  private readonly inFlight = new Map<string, number>();
  private running = 0;
  private pumping = false;
  private again = false;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  private listener: pg.Client | undefined;
  private readonly idle = new Set<() => void>();

  constructor(private readonly options: ClaimPumpOptions<T>) {}

  async start(): Promise<void> {
    await this.listen();
    this.schedule(0);
  }

  /** Looks for due rows now (e.g. right after queueing one in this process). */
  kick(): void {
    this.schedule(0);
  }

  /** Stops claiming; jobs in flight finish (each bounded by its own timeouts; their leases would cover a crash). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.listener?.end().catch(() => {});
    this.listener = undefined;
    if (this.running > 0) await new Promise<void>((resolve) => this.idle.add(resolve));
  }

  private async listen(): Promise<void> {
    if (this.stopped) return;
    const { name, log } = this.options;
    const client = new pg.Client({ connectionString: this.options.connectionString });
    const retry = () => setTimeout(() => void this.listen().catch((err: unknown) => log.warn({ err }, `${name} listener could not restart`)), 1_000).unref();
    client.on("error", (err) => {
      log.warn({ err }, `${name} listener lost its connection; polling until it is back`);
      if (this.listener === client) this.listener = undefined;
      client.end().catch(() => {});
      retry();
    });
    client.on("notification", () => this.schedule(0));
    try {
      await client.connect();
      await client.query(`LISTEN ${this.options.channel}`);
      this.listener = client;
    } catch (err) {
      log.warn({ err }, `${name} listener could not connect; polling`);
      await client.end().catch(() => {});
      retry();
    }
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.pump();
    }, delayMs);
  }

  private async pump(): Promise<void> {
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.pumping = true;
    try {
      do {
        this.again = false;
        await this.fill();
      } while (this.again && !this.stopped);
    } catch (err) {
      this.options.log.warn({ err }, `claiming from the ${this.options.name} failed; retrying`);
    } finally {
      this.pumping = false;
      this.schedule(this.options.pollMs);
    }
  }

  private async fill(): Promise<void> {
    const { concurrency, groupLimit, groupOf, release } = this.options;
    while (!this.stopped && this.running < concurrency) {
      const busy = [...this.inFlight].filter(([, n]) => n >= groupLimit).map(([group]) => group);
      const claimed = await this.options.claim(concurrency - this.running, busy);
      if (claimed.length === 0) return;
      let taken = 0;
      for (const item of claimed) {
        const group = groupOf(item);
        const n = this.inFlight.get(group) ?? 0;
        if (release && n >= groupLimit) {
          await release(item);
          continue;
        }
        taken++;
        this.running++;
        this.inFlight.set(group, n + 1);
        void this.options.handle(item).finally(() => {
          this.running--;
          const left = (this.inFlight.get(group) ?? 1) - 1;
          if (left > 0) this.inFlight.set(group, left);
          else this.inFlight.delete(group);
          if (this.running === 0) for (const resolve of this.idle) resolve();
          this.schedule(0);
        });
      }
      if (taken === 0) return;
    }
  }
}
