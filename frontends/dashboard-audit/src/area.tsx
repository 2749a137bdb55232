/**
 * The project's audit log: every admin and server-key write (who, what, which resource, before/after without
 * secrets, request id, IP), newest first, with filters by actor, resource, action and time, the detail of an entry
 * as a field diff, and an export of the filtered log as JSON lines. Entries are hash-chained per project (verify
 * with `npm run audit:verify`).
 */
import { useMemo, useState, type FormEvent } from "react";
import type { AuditLogEntry, AuditLogFilter } from "@vestibule/js";
import { Button, Card, CursorTable, ErrorAlert, Select, TextField, useAction, useTitle, type AreaProps } from "@vestibule/ui";
import { jsonDiff } from "./diff.ts";

const ACTOR_TYPES = [
  { value: "", label: "Any actor" },
  { value: "admin_user", label: "Dashboard user" },
  { value: "admin_key", label: "Admin key" },
  { value: "server_key", label: "Server key" },
  { value: "development_override", label: "Development override" },
];

const ACTOR_LABEL: Record<string, string> = Object.fromEntries(ACTOR_TYPES.filter((a) => a.value).map((a) => [a.value, a.label]));

interface FilterForm {
  actorType: string;
  actorId: string;
  resourceType: string;
  resourceId: string;
  action: string;
  since: string;
  until: string;
}

const EMPTY: FilterForm = { actorType: "", actorId: "", resourceType: "", resourceId: "", action: "", since: "", until: "" };

function toFilter(f: FilterForm): AuditLogFilter {
  return {
    actorType: (f.actorType || undefined) as AuditLogFilter["actorType"],
    actorId: f.actorId.trim() || undefined,
    resourceType: f.resourceType.trim() || undefined,
    resourceId: f.resourceId.trim() || undefined,
    action: f.action.trim() || undefined,
    since: f.since ? new Date(f.since) : undefined,
    until: f.until ? new Date(f.until) : undefined,
  };
}

const show = (v: unknown) => (v === undefined || v === null ? "—" : typeof v === "string" ? v : JSON.stringify(v));

function Detail({ entry, onClose }: { entry: AuditLogEntry; onClose: () => void }) {
  const changes = jsonDiff(entry.before, entry.after);
  return (
    <Card aria-label="Audit entry" data-testid="audit-detail">
      <div className="vs-stack">
        <div className="vs-spread">
          <h2 style={{ margin: 0, fontSize: "1.1rem" }}>
            {entry.action} <span className="vs-muted">#{entry.seq}</span>
          </h2>
          <Button small onClick={onClose}>
            Close
          </Button>
        </div>
        <dl className="vs-muted" style={{ display: "grid", gridTemplateColumns: "max-content minmax(0, 1fr)", gap: "4px 12px", margin: 0, overflowWrap: "anywhere" }}>
          <dt>When</dt>
          <dd>{new Date(entry.occurred_at_millis).toLocaleString()}</dd>
          <dt>Actor</dt>
          <dd>
            {ACTOR_LABEL[entry.actor.type] ?? entry.actor.type} <code className="vs-code">{entry.actor.id || "—"}</code>
          </dd>
          <dt>Resource</dt>
          <dd>
            {entry.resource_type} <code className="vs-code">{entry.resource_id || "—"}</code>
          </dd>
          <dt>Request</dt>
          <dd>
            <code className="vs-code">{entry.request_line}</code> · id <code className="vs-code">{entry.request_id}</code>
          </dd>
          <dt>From</dt>
          <dd>
            {entry.actor.ip || "—"} · {entry.actor.user_agent || "—"}
          </dd>
          <dt>Hash</dt>
          <dd>
            <code className="vs-code">{entry.hash.slice(0, 16)}…</code> (previous <code className="vs-code">{entry.prev_hash.slice(0, 16)}…</code>)
          </dd>
        </dl>
        <div style={{ overflowX: "auto", maxWidth: "100%" }}>
          <table className="vs-table" aria-label="Changes" style={{ tableLayout: "fixed", width: "100%" }}>
            <thead>
              <tr>
                <th>Field</th>
                <th>Before</th>
                <th>After</th>
              </tr>
            </thead>
            <tbody>
              {changes.length === 0 ? (
                <tr>
                  <td colSpan={3} className="vs-muted">
                    No field changed.
                  </td>
                </tr>
              ) : (
                changes.map((c) => (
                  <tr key={c.path} style={{ overflowWrap: "anywhere" }}>
                    <td>
                      <code className="vs-code" style={{ whiteSpace: "normal", overflowWrap: "anywhere" }}>
                        {c.path}
                      </code>
                    </td>
                    <td style={{ color: c.kind === "added" ? undefined : "var(--vs-danger, #b42318)" }}>{show(c.before)}</td>
                    <td style={{ color: c.kind === "removed" ? undefined : "var(--vs-success, #067647)" }}>{show(c.after)}</td>
                  </tr>
                ))
              )}
            </tbody>
          </table>
        </div>
      </div>
    </Card>
  );
}

export default function AuditArea({ adminApp, project }: AreaProps) {
  useTitle("Audit log · Vestibule");
  const [form, setForm] = useState<FilterForm>(EMPTY);
  const [applied, setApplied] = useState<FilterForm>(EMPTY);
  const [selected, setSelected] = useState<AuditLogEntry | null>(null);
  const filter = useMemo(() => toFilter(applied), [applied]);
  const [exportLog, exportState] = useAction(async () => {
    const lines = await adminApp.exportAuditLog(filter);
    const url = URL.createObjectURL(new Blob([lines], { type: "application/x-ndjson" }));
    const a = document.createElement("a");
    a.href = url;
    a.download = `audit-log-${project.id}.jsonl`;
    a.click();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  });
  const set = (k: keyof FilterForm) => (v: string) => setForm((f) => ({ ...f, [k]: v }));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setSelected(null);
    setApplied(form);
  };
  return (
    <div className="vs-stack">
      <div className="vs-spread">
        <h1 style={{ margin: 0, fontSize: "1.5rem" }}>Audit log</h1>
        <Button onClick={() => void exportLog()} loading={exportState.pending}>
          Export JSON lines
        </Button>
      </div>
      <p className="vs-muted" style={{ margin: 0 }}>
        Every write made with admin or server access, newest first. Each entry carries the hash of the one before it, so an edited or deleted entry is
        detected by <code className="vs-code">npm run audit:verify</code>.
      </p>
      <Card>
        <form onSubmit={submit} aria-label="Filters" style={{ display: "grid", gridTemplateColumns: "repeat(auto-fit, minmax(180px, 1fr))", gap: 12, alignItems: "end" }}>
          <Select label="Actor" options={ACTOR_TYPES} value={form.actorType} onChange={set("actorType")} />
          <TextField label="Actor id" value={form.actorId} onChange={set("actorId")} />
          <TextField label="Resource type" placeholder="user, team, api_key…" value={form.resourceType} onChange={set("resourceType")} />
          <TextField label="Resource id" value={form.resourceId} onChange={set("resourceId")} />
          <TextField label="Action" placeholder="user.update" value={form.action} onChange={set("action")} />
          <TextField label="From" type="datetime-local" value={form.since} onChange={set("since")} />
          <TextField label="To" type="datetime-local" value={form.until} onChange={set("until")} />
          <div style={{ display: "flex", gap: 8 }}>
            <Button type="submit" variant="primary">
              Apply
            </Button>
            <Button
              onClick={() => {
                setForm(EMPTY);
                setApplied(EMPTY);
              }}
            >
              Reset
            </Button>
          </div>
        </form>
      </Card>
      <ErrorAlert error={exportState.error} />
      {selected ? <Detail entry={selected} onClose={() => setSelected(null)} /> : null}
      <CursorTable<AuditLogEntry>
        caption="Audit log entries"
        pageSize={25}
        resetKey={JSON.stringify(applied)}
        fetchPage={(cursor, limit) => adminApp.listAuditLog(filter, { cursor: cursor ?? undefined, limit })}
        rowKey={(e) => e.id}
        onRowClick={setSelected}
        empty="No entries match."
        columns={[
          { key: "t", header: "When", render: (e) => new Date(e.occurred_at_millis).toLocaleString() },
          { key: "a", header: "Action", render: (e) => <code className="vs-code">{e.action}</code> },
          { key: "r", header: "Resource", render: (e) => `${e.resource_type} ${e.resource_id ? e.resource_id.slice(0, 13) : ""}`, hideOnPhone: true },
          { key: "w", header: "Actor", render: (e) => ACTOR_LABEL[e.actor.type] ?? e.actor.type },
          { key: "ip", header: "IP", render: (e) => e.actor.ip || "—", hideOnPhone: true },
        ]}
      />
    </div>
  );
}
