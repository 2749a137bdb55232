import type { ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import { transform } from "esbuild";
import { knownError, statusError } from "@vestibule/shared/errors";
import type { Logger } from "@vestibule/shared/log";
import { spawnRenderProcess } from "./render-process.ts";

/** What a template is rendered with (see services/email/README.md for the component API). */
export interface RenderProps {
  readonly user: { readonly displayName: string | null };
  readonly project: { readonly displayName: string };
}

export interface RenderRequest extends RenderProps {
  /** TSX of the template; or `bodyHtml` for an e-mail given as HTML (then wrapped in the theme, if any). */
  readonly templateSource?: string;
  readonly bodyHtml?: string;
  /** TSX of the theme; null/undefined = no theme. */
  readonly themeSource?: string | null;
  readonly variables?: Readonly<Record<string, unknown>>;
  /** Render with the template's `EmailTemplate.PreviewVariables` instead of `variables`. */
  readonly previewVariables?: boolean;
  /** Passed to the theme as `unsubscribeLink` (category e-mails). */
  readonly unsubscribeLink?: string;
}

export interface RenderedEmail {
  readonly html: string;
  readonly text: string;
  readonly subject?: string;
  readonly notificationCategory?: string;
}

export interface RendererOptions {
  readonly workers: number;
  /** CPU time of one render (vm timeout); the process is replaced when it does not answer shortly after. */
  readonly timeoutMs: number;
  /** Heap limit of each render process. */
  readonly memoryMb: number;
  readonly log: Logger;
  /**
   * TSX sources the platform ships (the default templates and themes): a render whose template and theme are all
   * among them reuses a render context set up before for the same sources instead of a fresh one (issue 19).
   */
  readonly platformSources?: readonly string[];
}

/** The largest TSX source compiled (characters). */
export const MAX_SOURCE_LENGTH = 500_000;
/** The largest rendered HTML accepted (characters). */
export const MAX_HTML_LENGTH = 2_000_000;
/** Renders waiting for a render process beyond this are refused (503), so a flood cannot queue without bound. */
const MAX_QUEUE = 500;
/** Time a render process gets, beyond the vm timeout, to answer before it is killed. */
const WATCHDOG_GRACE_MS = 1_500;

const renderingError = (error: string) => knownError("EMAIL_RENDERING_ERROR", { error });

interface Job {
  readonly id: number;
  readonly message: Record<string, unknown>;
  resolve(value: RenderedEmail): void;
  reject(err: unknown): void;
}

interface Slot {
  proc: ChildProcess;
  job: Job | undefined;
  timer: NodeJS.Timeout | undefined;
  ready: boolean;
  /** The end of the process's stderr (V8's out-of-memory report). */
  stderr: string;
}

/**
 * Renders admin-written TSX templates and themes, which are untrusted code: each source is compiled by esbuild (here,
 * cached by content), then run with React in a pool of long-lived render processes (`workers` of them), each render
 * in a fresh vm context with no Node APIs (render-worker.mjs); only renders of the platform's own sources
 * (`platformSources`, no admin-written code) reuse a context. The processes hold none of the service's secrets: an
 * empty environment, Node's permission model (read-only access to the render code and its packages; render-process.ts).
 * Limits: `timeoutMs` of CPU per render (vm timeout, then the process is killed), `memoryMb` of heap per process (a
 * process that exhausts it dies and is replaced), source and output sizes. Any failure is EMAIL_RENDERING_ERROR with
 * its reason; the pool keeps serving the next render.
 */
export class EmailRenderer {
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private readonly compiled = new Map<string, Promise<string>>();
  private nextId = 1;
  private closed = false;
  private readonly platformSources: ReadonlySet<string>;

  constructor(private readonly opts: RendererOptions) {
    this.platformSources = new Set(opts.platformSources);
    for (let i = 0; i < opts.workers; i++) this.slots.push(this.spawn());
  }

  /** Renders; throws EMAIL_RENDERING_ERROR with the reason when the code does not compile, throws or exceeds a limit. */
  async render(req: RenderRequest): Promise<RenderedEmail> {
    if (req.templateSource === undefined && req.bodyHtml === undefined) throw new Error("a template or a body is required");
    const [template, theme] = await Promise.all([
      req.templateSource !== undefined ? this.compile(req.templateSource, "template") : undefined,
      req.themeSource ? this.compile(req.themeSource, "theme") : undefined,
    ]);
    const input = JSON.stringify({
      template: template !== undefined,
      theme: theme !== undefined,
      bodyHtml: req.bodyHtml,
      user: { displayName: req.user.displayName },
      project: { displayName: req.project.displayName },
      variables: req.variables ?? {},
      previewVariables: req.previewVariables ?? false,
      unsubscribeLink: req.unsubscribeLink,
    });
    const ours = (source: string | null | undefined) => !source || this.platformSources.has(source);
    const reuse = ours(req.templateSource) && ours(req.themeSource);
    return this.run({ template, theme, input, reuse, timeoutMs: this.opts.timeoutMs, maxHtmlLength: MAX_HTML_LENGTH });
  }

  /** Compiles TSX to CommonJS (cached by content); syntax errors are EMAIL_RENDERING_ERROR with their location. */
  compile(source: string, what: "template" | "theme"): Promise<string> {
    if (source.length > MAX_SOURCE_LENGTH) return Promise.reject(renderingError(`The ${what} source is longer than ${MAX_SOURCE_LENGTH} characters.`));
    const key = `${what}:${createHash("sha256").update(source).digest("hex")}`;
    let p = this.compiled.get(key);
    if (p) {
      this.compiled.delete(key);
    } else {
      p = transform(source, {
        loader: "tsx",
        format: "cjs",
        jsx: "automatic",
        target: "es2022",
        sourcefile: `${what}.tsx`,
        logLevel: "silent",
      }).then(
        (r) => r.code,
        (err: { errors?: { text: string; location?: { line: number; column: number } | null }[]; message?: string }) => {
          const first = err.errors?.[0];
          const where = first?.location ? `${what}.tsx:${first.location.line}:${first.location.column + 1}: ` : "";
          throw renderingError(first ? `${where}${first.text}` : String(err.message ?? err));
        },
      );
      // Failures are not kept: the same broken source costs a compile again, but the cache holds only good code.
      p.catch(() => this.compiled.delete(key));
    }
    this.compiled.set(key, p);
    if (this.compiled.size > 500) this.compiled.delete(this.compiled.keys().next().value!);
    return p;
  }

  /** The process ids of the render processes (for operators' metrics and the isolation tests). */
  processIds(): number[] {
    return this.slots.map((s) => s.proc.pid).filter((pid): pid is number => pid !== undefined);
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.reject(statusError(503, "The e-mail renderer is shutting down."));
    await Promise.all(
      this.slots.map(async (slot) => {
        if (slot.timer) clearTimeout(slot.timer);
        slot.job?.reject(statusError(503, "The e-mail renderer is shutting down."));
        slot.job = undefined;
        await stop(slot.proc);
      }),
    );
  }

  private run(message: Record<string, unknown>): Promise<RenderedEmail> {
    if (this.closed) return Promise.reject(statusError(503, "The e-mail renderer is shutting down."));
    if (this.queue.length >= MAX_QUEUE) return Promise.reject(statusError(503, "Too many e-mails are being rendered; try again shortly."));
    return new Promise<RenderedEmail>((resolve, reject) => {
      this.queue.push({ id: this.nextId++, message, resolve, reject });
      this.dispatch();
    });
  }

  private dispatch(): void {
    for (const slot of this.slots) {
      if (this.queue.length === 0) return;
      if (slot.job || !slot.ready) continue;
      const job = this.queue.shift()!;
      slot.job = job;
      slot.timer = setTimeout(() => this.fail(slot, `Rendering took longer than ${this.opts.timeoutMs} ms.`), this.opts.timeoutMs + WATCHDOG_GRACE_MS);
      try {
        slot.proc.send({ ...job.message, id: job.id });
      } catch {
        this.fail(slot, "The renderer stopped unexpectedly.");
      }
    }
  }

  private spawn(): Slot {
    const proc = spawnRenderProcess(this.opts.memoryMb);
    const slot: Slot = { proc, job: undefined, timer: undefined, ready: false, stderr: "" };
    proc.on("message", (msg: { ready?: boolean; id?: number; result?: { error?: string } & Partial<RenderedEmail> }) => {
      if (msg.ready) {
        slot.ready = true;
        this.dispatch();
        return;
      }
      const job = slot.job;
      if (!job || msg.id !== job.id) return;
      clearTimeout(slot.timer);
      slot.job = undefined;
      slot.timer = undefined;
      const result = msg.result ?? { error: "no result" };
      if (typeof result.error === "string") {
        job.reject(renderingError(result.error));
        // A template that failed may have left its process near its heap limit (a huge string caught as "Invalid
        // string length") or in any other state: the next e-mail, maybe another project's, gets a fresh process
        // rather than one that can die under it.
        this.fail(slot, result.error);
        return;
      }
      job.resolve({ html: result.html ?? "", text: result.text ?? "", subject: result.subject, notificationCategory: result.notificationCategory });
      this.dispatch();
    });
    proc.on("error", (err: Error) => this.fail(slot, err.message));
    proc.on("exit", () => {
      if (!this.slots.includes(slot) || slot.proc !== proc) return;
      const outOfMemory = /heap limit|out of memory/i.test(slot.stderr);
      this.fail(slot, outOfMemory ? `Rendering ran out of memory (limit ${this.opts.memoryMb} MB).` : "The renderer stopped unexpectedly.");
    });
    // Template code has no console; what the process itself prints matters only for the cause of a crash.
    proc.stderr?.setEncoding("utf8");
    proc.stderr?.on("data", (chunk: string) => {
      slot.stderr = (slot.stderr + chunk).slice(-4096);
    });
    return slot;
  }

  /** Fails the slot's job (if any) and replaces its process. */
  private fail(slot: Slot, reason: string): void {
    const index = this.slots.indexOf(slot);
    if (index < 0) return;
    if (slot.timer) clearTimeout(slot.timer);
    const job = slot.job;
    slot.job = undefined;
    this.slots.splice(index, 1);
    void stop(slot.proc);
    if (job) {
      this.opts.log.warn({ reason }, "e-mail render process replaced");
      job.reject(renderingError(reason));
    }
    if (!this.closed) {
      this.slots.push(this.spawn());
      this.dispatch();
    }
  }
}

/** Kills a render process (it holds nothing worth a graceful stop) and waits until it is gone. */
function stop(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    proc.once("exit", () => resolve());
    proc.kill("SIGKILL");
  });
}
