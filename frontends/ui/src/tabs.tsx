/**
 * Tabs as the WAI-ARIA pattern has them: one tab stop for the whole list (roving tabindex), Left/Right/Home/End move
 * to and select a tab, each tab names the panel it controls. The panel gets `tabPanelProps(...)`.
 */
import { useRef, type KeyboardEvent, type ReactNode } from "react";

export interface TabItem {
  readonly id: string;
  readonly title: ReactNode;
}

export function TabList({ label, tabs, active, onSelect, idPrefix }: { label: string; tabs: readonly TabItem[]; active: string; onSelect: (id: string) => void; idPrefix: string }) {
  const list = useRef<HTMLDivElement>(null);
  const onKeyDown = (e: KeyboardEvent<HTMLButtonElement>, index: number) => {
    const target = e.key === "ArrowRight" ? (index + 1) % tabs.length : e.key === "ArrowLeft" ? (index - 1 + tabs.length) % tabs.length : e.key === "Home" ? 0 : e.key === "End" ? tabs.length - 1 : null;
    if (target === null) return;
    e.preventDefault();
    onSelect(tabs[target]!.id);
    list.current?.querySelector<HTMLButtonElement>(`#${CSS.escape(`${idPrefix}-tab-${tabs[target]!.id}`)}`)?.focus();
  };
  return (
    <div ref={list} className="vs-tabs" role="tablist" aria-label={label}>
      {tabs.map((t, i) => (
        <button
          key={t.id}
          type="button"
          role="tab"
          id={`${idPrefix}-tab-${t.id}`}
          aria-controls={`${idPrefix}-panel-${t.id}`}
          aria-selected={t.id === active}
          tabIndex={t.id === active ? 0 : -1}
          className="vs-tab"
          onClick={() => onSelect(t.id)}
          onKeyDown={(e) => onKeyDown(e, i)}
        >
          {t.title}
        </button>
      ))}
    </div>
  );
}

/** Props of the panel of the active tab: named by its tab, or by `label` when the panel deserves a fuller name. */
export function tabPanelProps(idPrefix: string, id: string, label?: string) {
  const name = label ? { "aria-label": label } : { "aria-labelledby": `${idPrefix}-tab-${id}` };
  return { role: "tabpanel", id: `${idPrefix}-panel-${id}`, ...name } as const;
}
