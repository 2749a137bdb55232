/**
 * Form controls and feedback components. Every control has a visible label tied to it (for screen readers), errors
 * are announced (`role="alert"`), buttons show a spinner while their action runs, and loading placeholders keep the
 * size of what they stand for so nothing moves when data arrives.
 */
import {
  useCallback,
  useEffect,
  useId,
  useRef,
  useState,
  type ButtonHTMLAttributes,
  type CSSProperties,
  type HTMLAttributes,
  type InputHTMLAttributes,
  type ReactNode,
  type SelectHTMLAttributes,
  type TextareaHTMLAttributes,
} from "react";

export function Spinner({ label }: { label?: string }) {
  return (
    <span role={label ? "status" : undefined} className="vs-row">
      <span className="vs-spinner" aria-hidden="true" />
      {label ? <span className="vs-sr-only">{label}</span> : null}
    </span>
  );
}

export interface ButtonProps extends ButtonHTMLAttributes<HTMLButtonElement> {
  readonly variant?: "primary" | "default" | "danger" | "ghost";
  readonly loading?: boolean;
  readonly block?: boolean;
  readonly small?: boolean;
}

export function Button({ variant = "default", loading, block, small, className, children, disabled, type, ...rest }: ButtonProps) {
  const cls = ["vs-btn", variant !== "default" ? `vs-btn-${variant}` : "", block ? "vs-btn-block" : "", small ? "vs-btn-small" : "", className ?? ""]
    .filter(Boolean)
    .join(" ");
  return (
    <button type={type ?? "button"} className={cls} disabled={disabled || loading} aria-busy={loading || undefined} {...rest}>
      {loading ? <span className="vs-spinner" aria-hidden="true" /> : null}
      {children}
    </button>
  );
}

interface FieldShellProps {
  readonly label: ReactNode;
  readonly error?: string | null;
  readonly hint?: ReactNode;
  readonly id: string;
  readonly children: ReactNode;
  readonly hideLabel?: boolean;
}

function FieldShell({ label, error, hint, id, children, hideLabel }: FieldShellProps) {
  return (
    <div className="vs-field">
      <label htmlFor={id} className={hideLabel ? "vs-sr-only" : undefined}>
        {label}
      </label>
      {children}
      {hint ? (
        <div id={`${id}-hint`} className="vs-hint">
          {hint}
        </div>
      ) : null}
      {error ? (
        <div id={`${id}-error`} className="vs-field-error" role="alert">
          {error}
        </div>
      ) : null}
    </div>
  );
}

export interface TextFieldProps extends Omit<InputHTMLAttributes<HTMLInputElement>, "onChange"> {
  readonly label: ReactNode;
  readonly error?: string | null;
  readonly hint?: ReactNode;
  readonly onChange?: (value: string) => void;
  readonly hideLabel?: boolean;
}

function describedBy(id: string, hint: unknown, error: unknown): string | undefined {
  return [hint ? `${id}-hint` : "", error ? `${id}-error` : ""].filter(Boolean).join(" ") || undefined;
}

export function TextField({ label, error, hint, onChange, id: givenId, hideLabel, ...rest }: TextFieldProps) {
  const auto = useId();
  const id = givenId ?? auto;
  return (
    <FieldShell label={label} error={error} hint={hint} id={id} hideLabel={hideLabel}>
      <input
        id={id}
        className="vs-input"
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy(id, hint, error)}
        onChange={(e) => onChange?.(e.target.value)}
        {...rest}
      />
    </FieldShell>
  );
}

export function PasswordField({ label, error, hint, onChange, id: givenId, ...rest }: TextFieldProps) {
  const auto = useId();
  const id = givenId ?? auto;
  const [shown, setShown] = useState(false);
  return (
    <FieldShell label={label} error={error} hint={hint} id={id}>
      <div className="vs-input-group">
        <input
          id={id}
          type={shown ? "text" : "password"}
          className="vs-input"
          aria-invalid={error ? true : undefined}
          aria-describedby={describedBy(id, hint, error)}
          onChange={(e) => onChange?.(e.target.value)}
          {...rest}
        />
        <button type="button" className="vs-btn vs-btn-ghost" onClick={() => setShown((s) => !s)} aria-pressed={shown} aria-controls={id}>
          {shown ? "Hide" : "Show"}
          <span className="vs-sr-only"> password</span>
        </button>
      </div>
    </FieldShell>
  );
}

export interface TextAreaProps extends Omit<TextareaHTMLAttributes<HTMLTextAreaElement>, "onChange"> {
  readonly label: ReactNode;
  readonly error?: string | null;
  readonly hint?: ReactNode;
  readonly onChange?: (value: string) => void;
}

export function TextArea({ label, error, hint, onChange, id: givenId, ...rest }: TextAreaProps) {
  const auto = useId();
  const id = givenId ?? auto;
  return (
    <FieldShell label={label} error={error} hint={hint} id={id}>
      <textarea
        id={id}
        className="vs-textarea"
        spellCheck={false}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy(id, hint, error)}
        onChange={(e) => onChange?.(e.target.value)}
        {...rest}
      />
    </FieldShell>
  );
}

export interface SelectProps extends Omit<SelectHTMLAttributes<HTMLSelectElement>, "onChange"> {
  readonly label: ReactNode;
  readonly options: readonly { value: string; label: string }[];
  readonly onChange?: (value: string) => void;
  readonly hint?: ReactNode;
  /** The label is read by screen readers but not shown (a compact control inside a table row). */
  readonly hideLabel?: boolean;
}

export function Select({ label, options, onChange, id: givenId, hint, hideLabel, ...rest }: SelectProps) {
  const auto = useId();
  const id = givenId ?? auto;
  return (
    <FieldShell label={label} id={id} hint={hint} hideLabel={hideLabel}>
      <select id={id} className="vs-select" onChange={(e) => onChange?.(e.target.value)} aria-describedby={hint ? `${id}-hint` : undefined} {...rest}>
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    </FieldShell>
  );
}

export function Switch({
  label,
  description,
  checked,
  onChange,
  disabled,
}: {
  label: ReactNode;
  description?: ReactNode;
  checked: boolean;
  onChange: (checked: boolean) => void;
  disabled?: boolean;
}) {
  const id = useId();
  return (
    <label className="vs-switch" htmlFor={id}>
      <input id={id} type="checkbox" role="switch" checked={checked} disabled={disabled} onChange={(e) => onChange(e.target.checked)} aria-describedby={description ? `${id}-d` : undefined} />
      <span>
        <span className="vs-label">{label}</span>
        {description ? (
          <span id={`${id}-d`} className="vs-hint" style={{ display: "block" }}>
            {description}
          </span>
        ) : null}
      </span>
    </label>
  );
}

export function Alert({ kind = "info", children, title }: { kind?: "info" | "error" | "warning" | "success"; children: ReactNode; title?: string }) {
  return (
    <div className={`vs-alert vs-alert-${kind}`} role={kind === "error" || kind === "warning" ? "alert" : "status"}>
      {title ? <strong style={{ display: "block" }}>{title}</strong> : null}
      {children}
    </div>
  );
}

export function Skeleton({ width = "100%", height = 16, style }: { width?: number | string; height?: number | string; style?: CSSProperties }) {
  return <div className="vs-skeleton" aria-hidden="true" style={{ width, height, ...style }} />;
}

export function Card({ children, className, ...rest }: { children: ReactNode; className?: string } & HTMLAttributes<HTMLDivElement>) {
  return (
    <div className={`vs-card ${className ?? ""}`} {...rest}>
      {children}
    </div>
  );
}

/** A determinate bar (0..1) or, without a value, an indeterminate one. */
export function Progress({ value, label }: { value?: number; label: string }) {
  const determinate = typeof value === "number";
  return (
    <div
      className={`vs-progress ${determinate ? "" : "vs-progress-indeterminate"}`}
      role="progressbar"
      aria-label={label}
      aria-valuemin={determinate ? 0 : undefined}
      aria-valuemax={determinate ? 100 : undefined}
      aria-valuenow={determinate ? Math.round(value * 100) : undefined}
    >
      <div style={determinate ? { width: `${Math.round(value * 100)}%` } : undefined} />
    </div>
  );
}

/** Round avatar: the image, else the first two letters of the name or e-mail in upper case, else an icon (spec §1). */
export function Avatar({ name, email, imageUrl, size = 34 }: { name?: string | null; email?: string | null; imageUrl?: string | null; size?: number }) {
  const source = name || email || "";
  const initials = source.slice(0, 2).toUpperCase();
  return (
    <span className="vs-avatar" style={{ width: size, height: size, fontSize: size * 0.4 }} aria-hidden="true">
      {imageUrl ? <img src={imageUrl} alt="" /> : initials ? initials : <span style={{ fontSize: size * 0.6 }}>👤</span>}
    </span>
  );
}

/** A modal dialog (native <dialog>: focus trap, Escape closes). */
export function Dialog({ open, onClose, title, children }: { open: boolean; onClose: () => void; title: string; children: ReactNode }) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) d.showModal();
    if (!open && d.open) d.close();
  }, [open]);
  return (
    <dialog ref={ref} className="vs-dialog" aria-labelledby={titleId} onClose={onClose} onCancel={onClose}>
      {open ? (
        <div className="vs-stack">
          <h2 id={titleId} style={{ margin: 0, fontSize: "1.15rem" }}>
            {title}
          </h2>
          {children}
        </div>
      ) : null}
    </dialog>
  );
}

/** A value with a copy button (keys shown once, codes, `.env` lines): its lines are kept, long ones wrap. */
export function CopyField({ label, value }: { label: string; value: string }) {
  const [copied, setCopied] = useState(false);
  const id = useId();
  return (
    <div className="vs-field">
      <span className="vs-label" id={id}>
        {label}
      </span>
      <div className="vs-row" style={{ flexWrap: "nowrap" }}>
        <code className="vs-code" aria-labelledby={id} style={{ flex: 1, whiteSpace: "pre-wrap", overflowWrap: "anywhere" }} data-testid={`copy-${label}`}>
          {value}
        </code>
        <Button
          small
          onClick={() => {
            void navigator.clipboard?.writeText(value).then(() => setCopied(true), () => setCopied(false));
          }}
        >
          {copied ? "Copied" : "Copy"}
          <span className="vs-sr-only"> {label}</span>
        </Button>
      </div>
    </div>
  );
}

/**
 * Runs an async action with its pending state and error: `const [run, { pending, error }] = useAction(fn)`.
 * The error is kept until the next run; a result (e.g. a KnownError returned, not thrown) can be mapped to an error
 * by the action throwing it.
 */
export function useAction<A extends unknown[], R>(fn: (...args: A) => Promise<R>): [(...args: A) => Promise<R | undefined>, { pending: boolean; error: unknown; reset: () => void }] {
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const mounted = useRef(true);
  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);
  const fnRef = useRef(fn);
  fnRef.current = fn;
  const run = useCallback(async (...args: A) => {
    setPending(true);
    setError(null);
    try {
      return await fnRef.current(...args);
    } catch (err) {
      if (mounted.current) setError(err);
      return undefined;
    } finally {
      if (mounted.current) setPending(false);
    }
  }, []);
  return [run, { pending, error, reset: () => setError(null) }];
}

/**
 * Loads data for a component: `{ status: "loading" | "ok" | "error", value, error, reload }`. Keeps the previous value
 * while reloading (no flicker).
 */
export function useLoad<T>(load: () => Promise<T>, deps: readonly unknown[]): { status: "loading" | "ok" | "error"; value: T | undefined; error: unknown; reload: () => Promise<void> } {
  const [state, setState] = useState<{ status: "loading" | "ok" | "error"; value: T | undefined; error: unknown }>({ status: "loading", value: undefined, error: null });
  const loadRef = useRef(load);
  loadRef.current = load;
  const seq = useRef(0);
  const reload = useCallback(async () => {
    const mine = ++seq.current;
    setState((s) => ({ ...s, status: s.value === undefined ? "loading" : s.status }));
    try {
      const value = await loadRef.current();
      if (mine === seq.current) setState({ status: "ok", value, error: null });
    } catch (error) {
      if (mine === seq.current) setState((s) => ({ status: "error", value: s.value, error }));
    }
  }, []);
  useEffect(() => {
    void reload();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, deps);
  return { ...state, reload };
}

/** Sets document.title while mounted. */
export function useTitle(title: string): void {
  useEffect(() => {
    const before = document.title;
    document.title = title;
    return () => {
      document.title = before;
    };
  }, [title]);
}
