import { createHash } from "node:crypto";
import { Worker } from "node:worker_threads";
import { transform } from "esbuild";
import { knownError, statusError } from "@vestibule/shared/errors";
import type { Logger } from "@vestibule/shared/log";

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
  /** CPU time of one render (vm timeout); the worker is replaced when it does not answer shortly after. */
  readonly timeoutMs: number;
  /** Heap limit of each worker. */
  readonly memoryMb: number;
  readonly log: Logger;
}

/** The largest TSX source compiled (characters). */
export const MAX_SOURCE_LENGTH = 500_000;
/** The largest rendered HTML accepted (characters). */
export const MAX_HTML_LENGTH = 2_000_000;
/** Renders waiting for a worker beyond this are refused (503), so a flood cannot queue without bound. */
const MAX_QUEUE = 500;
/** Time a worker gets, beyond the vm timeout, to answer before it is terminated. */
const WATCHDOG_GRACE_MS = 1_500;

const renderingError = (error: string) => knownError("EMAIL_RENDERING_ERROR", { error });

interface Job {
  readonly id: number;
  readonly message: Record<string, unknown>;
  resolve(value: RenderedEmail): void;
  reject(err: unknown): void;
}

interface Slot {
  worker: Worker;
  job: Job | undefined;
  timer: NodeJS.Timeout | undefined;
  ready: boolean;
}

const WORKER_URL = new URL("./render-worker.mjs", import.meta.url);

/**
 * Renders admin-written TSX templates and themes, which are untrusted code: each source is compiled by esbuild (here,
 * cached by content), then run with React in a pool of worker threads, each render in a fresh vm context with no
 * Node APIs (render-worker.mjs). Limits: `timeoutMs` of CPU per render (vm timeout, then the worker is terminated),
 * `memoryMb` of heap per worker (a worker that exhausts it dies and is replaced), source and output sizes. Any failure
 * is EMAIL_RENDERING_ERROR with its reason; the pool keeps serving the next render.
 */
export class EmailRenderer {
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private readonly compiled = new Map<string, Promise<string>>();
  private nextId = 1;
  private closed = false;

  constructor(private readonly opts: RendererOptions) {
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
    return this.run({ template, theme, input, timeoutMs: this.opts.timeoutMs, maxHtmlLength: MAX_HTML_LENGTH });
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

  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.reject(statusError(503, "The e-mail renderer is shutting down."));
    await Promise.all(
      this.slots.map(async (slot) => {
        if (slot.timer) clearTimeout(slot.timer);
        slot.job?.reject(statusError(503, "The e-mail renderer is shutting down."));
        slot.job = undefined;
        await slot.worker.terminate();
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
      slot.worker.postMessage({ ...job.message, id: job.id });
    }
  }

  private spawn(): Slot {
    const worker = new Worker(WORKER_URL, {
      resourceLimits: {
        maxOldGenerationSizeMb: this.opts.memoryMb,
        maxYoungGenerationSizeMb: Math.max(4, Math.floor(this.opts.memoryMb / 8)),
        codeRangeSizeMb: 32,
        stackSizeMb: 4,
      },
      // No inherited loader flags (e.g. tsx): the worker is plain JavaScript.
      execArgv: [],
      env: {},
      stdout: true,
      stderr: true,
    });
    const slot: Slot = { worker, job: undefined, timer: undefined, ready: false };
    worker.on("message", (msg: { ready?: boolean; id?: number; result?: { error?: string } & Partial<RenderedEmail> }) => {
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
      if (typeof result.error === "string") job.reject(renderingError(result.error));
      else job.resolve({ html: result.html ?? "", text: result.text ?? "", subject: result.subject, notificationCategory: result.notificationCategory });
      this.dispatch();
    });
    worker.on("error", (err: Error & { code?: string }) => {
      const reason = err.code === "ERR_WORKER_OUT_OF_MEMORY" ? `Rendering ran out of memory (limit ${this.opts.memoryMb} MB).` : err.message;
      this.fail(slot, reason);
    });
    worker.on("exit", () => {
      if (this.slots.includes(slot) && slot.worker === worker) this.fail(slot, "The renderer stopped unexpectedly.");
    });
    // Template code has no console; anything the worker itself prints is not interesting to operators.
    worker.stdout.resume();
    worker.stderr.resume();
    return slot;
  }

  /** Fails the slot's job (if any) and replaces its worker. */
  private fail(slot: Slot, reason: string): void {
    const index = this.slots.indexOf(slot);
    if (index < 0) return;
    if (slot.timer) clearTimeout(slot.timer);
    const job = slot.job;
    slot.job = undefined;
    this.slots.splice(index, 1);
    void slot.worker.terminate();
    if (job) {
      this.opts.log.warn({ reason }, "e-mail render worker replaced");
      job.reject(renderingError(reason));
    }
    if (!this.closed) {
      this.slots.push(this.spawn());
      this.dispatch();
    }
  }
}
