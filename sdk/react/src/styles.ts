/** Styles of the user menu, scoped under .vst-* class names; colours come from CSS variables a host can override. */
export const USER_BUTTON_CSS = `
.vst-user-button{position:relative;display:inline-block;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;font-size:14px;
  --vst-bg:#fff;--vst-fg:#111827;--vst-muted:#6b7280;--vst-border:#e5e7eb;--vst-hover:#f3f4f6;--vst-accent:#4f46e5;--vst-avatar-bg:#e0e7ff;--vst-avatar-fg:#3730a3;--vst-skeleton:#d1d5db}
[data-theme=dark] .vst-user-button,.vst-user-button[data-theme=dark]{--vst-bg:#1f2937;--vst-fg:#f9fafb;--vst-muted:#9ca3af;--vst-border:#374151;--vst-hover:#374151;--vst-avatar-bg:#3730a3;--vst-avatar-fg:#e0e7ff;--vst-skeleton:#374151}
.vst-trigger{display:inline-flex;align-items:center;gap:8px;padding:0;border:0;background:none;color:var(--vst-fg);cursor:pointer;border-radius:999px;font:inherit;text-align:left}
.vst-trigger:focus-visible{outline:2px solid var(--vst-accent);outline-offset:2px}
.vst-avatar{display:inline-flex;align-items:center;justify-content:center;border-radius:50%;overflow:hidden;flex:none;background:var(--vst-avatar-bg);color:var(--vst-avatar-fg);font-weight:600;line-height:1;user-select:none}
.vst-avatar img{width:100%;height:100%;object-fit:cover;display:block}
.vst-skeleton{display:inline-block;border-radius:50%;background:var(--vst-skeleton);animation:vst-pulse 1.5s ease-in-out infinite}
@keyframes vst-pulse{0%,100%{opacity:1}50%{opacity:.6}}
.vst-menu{position:absolute;right:0;top:calc(100% + 6px);z-index:50;min-width:220px;padding:4px;background:var(--vst-bg);color:var(--vst-fg);border:1px solid var(--vst-border);border-radius:8px;box-shadow:0 10px 25px -5px rgba(0,0,0,.15),0 4px 6px -4px rgba(0,0,0,.1)}
.vst-menu .vst-menu{top:-5px;right:calc(100% + 4px);left:auto}
.vst-menu-label{padding:8px 10px;border-bottom:1px solid var(--vst-border);margin-bottom:4px}
.vst-label{display:flex;flex-direction:column;gap:2px;min-width:0}
.vst-name{font-weight:600}
.vst-muted{color:var(--vst-muted);font-size:13px}
.vst-separator{height:1px;background:var(--vst-border);margin:4px 0}
.vst-item-wrap{position:relative}
.vst-item{display:flex;align-items:center;gap:8px;padding:7px 10px;border-radius:6px;cursor:pointer;outline:none}
.vst-item[data-active],.vst-item:focus-visible{background:var(--vst-hover)}
.vst-item[aria-disabled=true]{opacity:.5;cursor:default}
.vst-item-icon{display:inline-flex;width:16px;height:16px;align-items:center;justify-content:center;color:var(--vst-muted)}
.vst-item-text{flex:1}
.vst-chevron{color:var(--vst-muted)}
.vst-spinner{width:14px;height:14px;border-radius:50%;border:2px solid var(--vst-border);border-top-color:var(--vst-accent);animation:vst-spin .7s linear infinite}
@keyframes vst-spin{to{transform:rotate(360deg)}}
`;
