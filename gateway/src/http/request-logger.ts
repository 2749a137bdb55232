import type { FastifyBaseLogger } from "fastify";

type Bindings = Parameters<FastifyBaseLogger["child"]>[0];
type ChildOptions = Parameters<FastifyBaseLogger["child"]>[1];
type AnyLog = (...args: unknown[]) => void;

/**
 * Fastify's per-request logger (`req.log`, bound to the request id), created only when the request actually logs.
 * A pino child costs ≈20 µs with our redaction paths (pino redacts the bindings), which is wasted on the many requests
 * that log nothing, e.g. every successful token refresh. Logs are the same: the first log call makes the real child.
 */
export class LazyChildLogger implements FastifyBaseLogger {
  private made: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options: ChildOptions,
  ) {}

  private real(): FastifyBaseLogger {
    return (this.made ??= this.parent.child(this.bindings, this.options));
  }

  get level(): string {
    return this.made?.level ?? this.options?.level ?? this.parent.level;
  }

  set level(value: string) {
    this.real().level = value;
  }

  fatal(...args: unknown[]): void {
    (this.real().fatal as AnyLog)(...args);
  }
  error(...args: unknown[]): void {
    (this.real().error as AnyLog)(...args);
  }
  warn(...args: unknown[]): void {
    (this.real().warn as AnyLog)(...args);
  }
  info(...args: unknown[]): void {
    (this.real().info as AnyLog)(...args);
  }
  debug(...args: unknown[]): void {
    (this.real().debug as AnyLog)(...args);
  }
  trace(...args: unknown[]): void {
    (this.real().trace as AnyLog)(...args);
  }
  silent(...args: unknown[]): void {
    (this.real().silent as AnyLog)(...args);
  }
  child(bindings: Bindings, options?: ChildOptions): FastifyBaseLogger {
    return this.real().child(bindings, options);
  }
}
