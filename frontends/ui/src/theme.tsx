/**
 * Light and dark theme. The palette is CSS custom properties on `html[data-theme]`; the page's inline start-up script
 * (build-config HTML) sets the attribute before the first paint from the saved choice or `prefers-color-scheme`, so
 * nothing flashes. Components use only classes defined here (`vs-*`), injected once per page by <ThemeStyles/>.
 */
import { useCallback, useSyncExternalStore } from "react";

export type ThemeName = "light" | "dark";
export const THEME_STORAGE_KEY = "vestibule-theme";

const CSS = `
:root,html[data-theme=light]{--vs-bg:#f7f7f9;--vs-surface:#fff;--vs-surface-2:#f1f2f5;--vs-text:#16181d;--vs-muted:#5b6170;
--vs-border:#d9dce3;--vs-input-border:#858b9b;--vs-primary:#4338ca;--vs-primary-text:#fff;--vs-primary-hover:#3730a3;--vs-danger:#b42318;--vs-danger-bg:#fef3f2;
--vs-warn:#8a5a00;--vs-warn-bg:#fff8e6;--vs-ok:#067647;--vs-ok-bg:#ecfdf3;--vs-info-bg:#eef2ff;--vs-focus:#6366f1;--vs-shadow:0 1px 2px rgba(16,24,40,.06),0 1px 3px rgba(16,24,40,.1)}
html[data-theme=dark]{--vs-bg:#111318;--vs-surface:#1a1d24;--vs-surface-2:#232732;--vs-text:#eceef3;--vs-muted:#a3a9b8;
--vs-border:#343a48;--vs-input-border:#6f778a;--vs-primary:#818cf8;--vs-primary-text:#0b0d12;--vs-primary-hover:#a5b4fc;--vs-danger:#fda29b;--vs-danger-bg:#3a1512;
--vs-warn:#fdd37a;--vs-warn-bg:#33260a;--vs-ok:#6ce9a6;--vs-ok-bg:#0c2e1f;--vs-info-bg:#1e2240;--vs-focus:#a5b4fc;--vs-shadow:0 1px 3px rgba(0,0,0,.5)}
.vs-root{font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--vs-text);background:var(--vs-bg);min-height:100vh;box-sizing:border-box;overflow-wrap:break-word}
.vs-root h1,.vs-root h2,.vs-root h3,.vs-alert,.vs-hint{overflow-wrap:anywhere}
.vs-root *,.vs-root *::before,.vs-root *::after{box-sizing:border-box}
.vs-root a:not(.vs-btn):not(.vs-tab){color:var(--vs-primary)}
.vs-root :focus-visible{outline:2px solid var(--vs-focus);outline-offset:2px}
.vs-sr-only{position:absolute;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0,0,0,0);white-space:nowrap;border:0}
.vs-skip{position:absolute;left:-9999px;top:8px;z-index:10;background:var(--vs-surface);padding:8px 12px;border-radius:8px}
.vs-skip:focus{left:8px}
.vs-card{background:var(--vs-surface);border:1px solid var(--vs-border);border-radius:12px;box-shadow:var(--vs-shadow);padding:24px}
.vs-auth-page{display:flex;justify-content:center;align-items:flex-start;padding:48px 16px}
.vs-auth-card{width:100%;max-width:420px}
.vs-auth-card h1{font-size:1.5rem;margin:0 0 4px}
.vs-muted{color:var(--vs-muted)}
.vs-stack{display:flex;flex-direction:column;gap:16px}
.vs-row{display:flex;gap:8px;align-items:center;flex-wrap:wrap}
.vs-spread{display:flex;gap:8px;align-items:center;justify-content:space-between;flex-wrap:wrap}
.vs-field{display:flex;flex-direction:column;gap:6px}
.vs-field label,.vs-label{font-weight:600;font-size:.9rem}
.vs-input,.vs-select,.vs-textarea{width:100%;font:inherit;color:var(--vs-text);background:var(--vs-surface);border:1px solid var(--vs-input-border);border-radius:8px;padding:9px 12px;min-height:40px}
.vs-textarea{min-height:120px;font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.85rem}
.vs-input[aria-invalid=true],.vs-textarea[aria-invalid=true]{border-color:var(--vs-danger)}
.vs-field-error{color:var(--vs-danger);font-size:.85rem;min-height:0}
.vs-hint{color:var(--vs-muted);font-size:.85rem}
.vs-input-group{position:relative;display:flex}
.vs-input-group .vs-input{padding-right:72px}
.vs-input-group .vs-btn{position:absolute;right:4px;top:4px;min-height:32px;padding:4px 10px}
.vs-btn{display:inline-flex;align-items:center;justify-content:center;gap:8px;font:inherit;font-weight:600;border-radius:8px;border:1px solid var(--vs-border);background:var(--vs-surface);color:var(--vs-text);padding:8px 14px;min-height:40px;cursor:pointer;text-decoration:none}
.vs-btn:hover{background:var(--vs-surface-2)}
.vs-btn[disabled]{opacity:.6;cursor:not-allowed}
.vs-btn-primary{background:var(--vs-primary);border-color:var(--vs-primary);color:var(--vs-primary-text)}
.vs-btn-primary:hover{background:var(--vs-primary-hover)}
.vs-btn-danger{color:var(--vs-danger);border-color:var(--vs-danger)}
.vs-btn-ghost{border-color:transparent;background:transparent}
.vs-btn-block{width:100%}
.vs-btn-small{min-height:32px;padding:4px 10px;font-size:.85rem}
.vs-spinner{width:16px;height:16px;border:2px solid currentColor;border-right-color:transparent;border-radius:50%;animation:vs-spin .7s linear infinite;display:inline-block;flex:none}
@keyframes vs-spin{to{transform:rotate(360deg)}}
@media (prefers-reduced-motion:reduce){.vs-spinner{animation-duration:2s}}
.vs-alert{border-radius:8px;padding:10px 12px;border:1px solid transparent;font-size:.92rem}
.vs-alert-error{background:var(--vs-danger-bg);color:var(--vs-danger);border-color:var(--vs-danger)}
.vs-alert-warning{background:var(--vs-warn-bg);color:var(--vs-warn);border-color:var(--vs-warn)}
.vs-alert-success{background:var(--vs-ok-bg);color:var(--vs-ok);border-color:var(--vs-ok)}
.vs-alert-info{background:var(--vs-info-bg);border-color:var(--vs-border)}
.vs-divider{display:flex;align-items:center;gap:12px;color:var(--vs-muted);font-size:.85rem}
.vs-divider::before,.vs-divider::after{content:"";flex:1;border-top:1px solid var(--vs-border)}
.vs-skeleton{background:linear-gradient(90deg,var(--vs-surface-2),var(--vs-border),var(--vs-surface-2));background-size:200% 100%;animation:vs-shimmer 1.4s ease infinite;border-radius:6px}
@keyframes vs-shimmer{to{background-position:-200% 0}}
.vs-table-wrap{position:relative;overflow-x:auto;border:1px solid var(--vs-border);border-radius:10px;background:var(--vs-surface)}
.vs-table{width:100%;border-collapse:collapse;font-size:.92rem}
.vs-table th,.vs-table td{text-align:left;padding:10px 12px;border-bottom:1px solid var(--vs-border);vertical-align:middle;height:48px}
.vs-table th{font-size:.8rem;text-transform:uppercase;letter-spacing:.03em;color:var(--vs-muted);background:var(--vs-surface-2);height:40px}
.vs-table tr:last-child td{border-bottom:0}
.vs-table .vs-code{white-space:nowrap;word-break:normal}
.vs-table tbody tr[data-clickable]{cursor:pointer}
.vs-table tbody tr[data-clickable]:hover{background:var(--vs-surface-2)}
.vs-badge{display:inline-block;font-size:.75rem;font-weight:600;border-radius:999px;padding:2px 8px;background:var(--vs-surface-2);border:1px solid var(--vs-border)}
.vs-badge-ok{color:var(--vs-ok);background:var(--vs-ok-bg);border-color:transparent}
.vs-badge-warn{color:var(--vs-warn);background:var(--vs-warn-bg);border-color:transparent}
.vs-switch{display:flex;align-items:flex-start;gap:10px;cursor:pointer}
.vs-switch input{width:18px;height:18px;margin-top:3px;accent-color:var(--vs-primary)}
.vs-section{display:flex;flex-direction:column;gap:12px}
.vs-section h2{font-size:1.15rem;margin:0}
.vs-section h3{font-size:1rem;margin:0}
.vs-dialog{border:1px solid var(--vs-border);border-radius:12px;background:var(--vs-surface);color:var(--vs-text);padding:24px;max-width:min(520px,92vw);width:100%;box-shadow:0 20px 50px rgba(0,0,0,.3)}
.vs-dialog::backdrop{background:rgba(10,12,20,.5)}
.vs-progress{width:100%;height:6px;border-radius:3px;background:var(--vs-surface-2);overflow:hidden}
.vs-progress>div{height:100%;background:var(--vs-primary);transition:width .2s}
.vs-progress-indeterminate>div{width:40%;animation:vs-indet 1.2s ease-in-out infinite}
@keyframes vs-indet{0%{margin-left:-40%}100%{margin-left:100%}}
.vs-code{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.85rem;background:var(--vs-surface-2);border:1px solid var(--vs-border);border-radius:6px;padding:2px 6px;word-break:break-all}
.vs-pre{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.8rem;background:var(--vs-surface-2);border:1px solid var(--vs-border);border-radius:8px;padding:12px;overflow:auto;max-height:320px;margin:0;white-space:pre-wrap;word-break:break-word}
.vs-avatar{border-radius:50%;display:inline-flex;align-items:center;justify-content:center;background:var(--vs-primary);color:var(--vs-primary-text);font-weight:700;overflow:hidden;flex:none}
.vs-avatar img{width:100%;height:100%;object-fit:cover}
.vs-tabs{display:flex;flex-wrap:wrap;gap:0 4px;border-bottom:1px solid var(--vs-border)}
.vs-tab{font:inherit;background:none;border:0;border-bottom:2px solid transparent;padding:8px 12px;color:var(--vs-muted);cursor:pointer;white-space:nowrap;text-decoration:none}
.vs-tab[aria-selected=true],.vs-tab[aria-current=page]{color:var(--vs-text);border-bottom-color:var(--vs-primary);font-weight:600}
.vs-grid-2{display:grid;grid-template-columns:repeat(auto-fit,minmax(260px,1fr));gap:16px}
.vs-kv{display:grid;grid-template-columns:minmax(120px,180px) 1fr;gap:6px 16px;font-size:.92rem}
.vs-kv dt{color:var(--vs-muted)}
.vs-kv dd{margin:0;word-break:break-all}
@media (max-width:600px){.vs-auth-page{padding:16px 12px}.vs-card{padding:16px}.vs-kv{grid-template-columns:1fr}.vs-hide-phone{display:none}}
`;

/** Injects the theme's stylesheet (once per page, whichever app renders first). */
export function ThemeStyles() {
  return <style data-vestibule-ui="">{CSS}</style>;
}

function currentTheme(): ThemeName {
  if (typeof document === "undefined") return "light";
  return document.documentElement.dataset.theme === "dark" ? "dark" : "light";
}

const listeners = new Set<() => void>();
let observer: MutationObserver | null = null;

/**
 * Subscribes to theme changes: setTheme() here, and any other change of `html[data-theme]` (another app on the page
 * with its own copy of this kit, a browser extension, tests), seen through a MutationObserver.
 */
function subscribeTheme(listener: () => void): () => void {
  listeners.add(listener);
  if (!observer && typeof MutationObserver !== "undefined") {
    observer = new MutationObserver(() => {
      for (const l of listeners) l();
    });
    observer.observe(document.documentElement, { attributes: true, attributeFilter: ["data-theme"] });
  }
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0) {
      observer?.disconnect();
      observer = null;
    }
  };
}

export function setTheme(theme: ThemeName): void {
  document.documentElement.dataset.theme = theme;
  document.documentElement.style.colorScheme = theme;
  try {
    localStorage.setItem(THEME_STORAGE_KEY, theme);
  } catch {
    /* private mode */
  }
  for (const l of listeners) l();
}

/** The active theme and a toggle; every user of the hook re-renders on a change. */
export function useTheme(): { theme: ThemeName; toggle: () => void; set: (t: ThemeName) => void } {
  const theme = useSyncExternalStore(
    subscribeTheme,
    currentTheme,
    () => "light" as ThemeName,
  );
  const toggle = useCallback(() => setTheme(currentTheme() === "dark" ? "light" : "dark"), []);
  return { theme, toggle, set: setTheme };
}

export function ThemeToggle({ className }: { className?: string }) {
  const { theme, toggle } = useTheme();
  const next = theme === "dark" ? "light" : "dark";
  return (
    <button type="button" className={`vs-btn vs-btn-ghost vs-btn-small ${className ?? ""}`} onClick={toggle} aria-label={`Switch to ${next} theme`} title={`Switch to ${next} theme`}>
      <span aria-hidden="true">{theme === "dark" ? "☀" : "☾"}</span>
      <span className="vs-hide-phone">{theme === "dark" ? "Light" : "Dark"}</span>
    </button>
  );
}
