/**
 * E-mail of a project: the sender (shared server or the project's own SMTP, with a test e-mail), themes, templates
 * and drafts (TSX source with a rendered preview), the sent log and, in development, the dev mailbox.
 */
import { useState, type FormEvent } from "react";
import type { StackAdminApp } from "@vestibule/js";
import { Alert, Button, Card, ErrorAlert, Progress, errorMessage, Select, TabList, Table, TextArea, TextField, tabPanelProps, useAction, useLoad, useTitle, type AreaProps } from "@vestibule/ui";

type Tab = "sender" | "themes" | "templates" | "drafts" | "sent" | "mailbox";

function Sender({ adminApp }: { adminApp: StackAdminApp }) {
  const project = useLoad(() => adminApp.getProject(), [adminApp]);
  const cfg = (project.value?.config.emailConfig ?? { type: "shared" }) as Record<string, any>;
  const [form, setForm] = useState<Record<string, string> | null>(null);
  const f = form ?? { type: cfg.type ?? "shared", host: cfg.host ?? "", port: String(cfg.port ?? 587), username: cfg.username ?? "", password: "", senderName: cfg.sender_name ?? "", senderEmail: cfg.sender_email ?? "" };
  const set = (k: string) => (v: string) => setForm({ ...f, [k]: v });
  const [recipient, setRecipient] = useState("");
  const [test, testState] = useAction(async () => {
    const r = await adminApp.sendTestEmail({ recipientEmail: recipient, emailConfig: { host: f.host!, port: Number(f.port), username: f.username!, password: f.password!, senderEmail: f.senderEmail!, senderName: f.senderName! } });
    if (r.status === "error") throw r.error;
  });
  const [save, saveState] = useAction(async () => {
    const emailConfig = f.type === "shared" ? { type: "shared" } : { type: "standard", host: f.host, port: Number(f.port), username: f.username, password: f.password, senderName: f.senderName, senderEmail: f.senderEmail };
    await project.value!.update({ config: { emailConfig } });
    await project.reload();
  });
  return (
    <form className="vs-stack" noValidate onSubmit={(e: FormEvent) => { e.preventDefault(); void save(); }}>
      <ErrorAlert error={project.error} />
      <Select label="Sender" value={f.type!} onChange={set("type")} options={[{ value: "shared", label: "Shared development sender" }, { value: "standard", label: "My own SMTP server" }]} />
      {f.type === "standard" ? (
        <div className="vs-grid-2">
          <TextField label="SMTP host" value={f.host} onChange={set("host")} />
          <TextField label="Port" inputMode="numeric" value={f.port} onChange={set("port")} error={Number(f.port) >= 0 && Number(f.port) <= 65535 ? null : "Port must be between 0 and 65535."} />
          <TextField label="Username" value={f.username} onChange={set("username")} />
          <TextField label="Password" type="password" value={f.password} onChange={set("password")} hint="Stored encrypted; leave empty to keep the saved one." />
          <TextField label="Sender name" value={f.senderName} onChange={set("senderName")} />
          <TextField label="Sender e-mail" type="email" value={f.senderEmail} onChange={set("senderEmail")} />
        </div>
      ) : null}
      <ErrorAlert error={saveState.error} />
      <div className="vs-row">
        <Button type="submit" variant="primary" loading={saveState.pending} disabled={!project.value}>
          Save sender
        </Button>
      </div>
      {f.type === "standard" ? (
        <div className="vs-row" style={{ alignItems: "flex-end" }}>
          <div style={{ flex: "1 1 240px" }}>
            <TextField label="Send a test e-mail to" type="email" value={recipient} onChange={setRecipient} />
          </div>
          <Button onClick={() => void test()} loading={testState.pending} disabled={!recipient}>
            Send test e-mail
          </Button>
        </div>
      ) : null}
      {testState.pending ? <Progress label="Sending the test e-mail" /> : null}
      <ErrorAlert error={testState.error} />
    </form>
  );
}

/**
 * A TSX editor with a rendered preview (POST /emails/render-email). Saving renders the source first: an empty source
 * or one that does not compile is refused with the reason, and nothing is saved.
 */
function SourceEditor({ title, source, preview, onSave }: { title: string; source: string; preview: (src: string) => Promise<string>; onSave: (src: string) => Promise<void> }) {
  const [text, setText] = useState(source);
  const [html, setHtml] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const [render, renderState] = useAction(async () => setHtml(await preview(text)));
  const [save, saveState] = useAction(async () => {
    if (!text.trim()) throw new Error("The source is empty. Nothing was saved: write the TSX source first.");
    let rendered: string;
    try {
      rendered = await preview(text);
    } catch (err) {
      throw new Error(`This source does not compile, so it was not saved: ${errorMessage(err)}`);
    }
    setHtml(rendered);
    await onSave(text);
    setSaved(true);
  });
  return (
    <div className="vs-stack">
      <h3>{title}</h3>
      <div className="vs-grid-2">
        <TextArea
          label="TSX source"
          value={text}
          onChange={(v) => {
            setText(v);
            setSaved(false);
          }}
          rows={14}
        />
        <div className="vs-field">
          <span className="vs-label">Preview</span>
          {renderState.pending ? <Progress label="Rendering the preview" /> : null}
          <iframe title={`Preview of ${title}`} sandbox="" srcDoc={html ?? "<p style='font-family:sans-serif;color:#666'>Render to see a preview.</p>"} style={{ width: "100%", height: 280, border: "1px solid var(--vs-border)", borderRadius: 8, background: "#fff" }} />
        </div>
      </div>
      <ErrorAlert error={renderState.error ?? saveState.error} />
      {saved ? <Alert kind="success">Saved.</Alert> : null}
      <div className="vs-row">
        <Button onClick={() => void render()} loading={renderState.pending}>
          Render preview
        </Button>
        <Button variant="primary" onClick={() => void save()} loading={saveState.pending}>
          Save
        </Button>
      </div>
    </div>
  );
}

function Collection({ kind, adminApp }: { kind: "themes" | "templates" | "drafts"; adminApp: StackAdminApp }) {
  const list = useLoad(async (): Promise<{ id: string; displayName: string; tsxSource?: string; sentAt?: Date | null }[]> => {
    if (kind === "themes") return adminApp.listEmailThemes();
    if (kind === "templates") return adminApp.listEmailTemplates();
    return adminApp.listEmailDrafts();
  }, [adminApp, kind]);
  const [selected, setSelected] = useState<string | null>(null);
  const [name, setName] = useState("");
  const [touched, setTouched] = useState(false);
  const [create, state] = useAction(async () => {
    if (kind === "themes") await adminApp.createEmailTheme(name.trim());
    else if (kind === "templates") await adminApp.createEmailTemplate(name.trim());
    else await adminApp.createEmailDraft({ displayName: name.trim() });
    setName("");
    setTouched(false);
    await list.reload();
  });
  const item = list.value?.find((i) => i.id === selected);
  // Themes are listed without their source: the editor opens with the theme's full source, loaded on selection.
  const themeSource = useLoad(async () => (kind === "themes" && selected ? adminApp.getEmailTheme(selected) : null), [adminApp, kind, selected]);
  const loadedTheme = themeSource.value && themeSource.value.id === selected ? themeSource.value : null;
  const singular = kind.slice(0, -1);
  return (
    <div className="vs-stack">
      <ErrorAlert error={list.error} />
      <Table
        caption={kind}
        rows={list.value ?? []}
        loadingRows={list.status === "loading" ? 3 : 0}
        rowKey={(i) => i.id}
        onRowClick={(i) => setSelected(i.id)}
        empty={`No ${kind} yet.`}
        columns={[
          { key: "n", header: "Name", render: (i) => <button type="button" className="vs-btn vs-btn-ghost vs-btn-small" onClick={() => setSelected(i.id)}>{i.displayName}</button> },
          ...(kind === "drafts" ? [{ key: "s", header: "Sent", render: (i: { sentAt?: Date | null }) => (i.sentAt ? i.sentAt.toLocaleString() : "Not sent") }] : []),
        ]}
      />
      <form className="vs-row" style={{ alignItems: "flex-end" }} noValidate onSubmit={(e: FormEvent) => { e.preventDefault(); setTouched(true); if (name.trim()) void create(); }}>
        <div style={{ flex: "1 1 240px" }}>
          <TextField label={`New ${singular} name`} value={name} onChange={setName} error={touched && !name.trim() ? `Enter a name for the ${singular}.` : null} />
        </div>
        <Button type="submit" loading={state.pending}>
          Create
        </Button>
      </form>
      <ErrorAlert error={state.error} />
      {item && kind === "themes" ? <ErrorAlert error={themeSource.error} /> : null}
      {item && kind === "themes" && !loadedTheme && !themeSource.error ? <Progress label={`Loading ${item.displayName}`} /> : null}
      {item && (kind !== "themes" || loadedTheme) ? (
        <SourceEditor
          key={item.id}
          title={item.displayName}
          source={kind === "themes" ? loadedTheme!.tsxSource : (item.tsxSource ?? "")}
          preview={(src) =>
            kind === "themes" ? adminApp.getEmailPreview({ themeTsxSource: src, templateTsxSource: "export function EmailTemplate() { return <p>Preview</p>; }" }) : adminApp.getEmailPreview({ templateTsxSource: src })
          }
          onSave={async (src) => {
            if (kind === "themes") await adminApp.updateEmailTheme(item.id, src);
            else if (kind === "templates") await adminApp.updateEmailTemplate(item.id, src, null);
            else await adminApp.updateEmailDraft(item.id, { tsxSource: src });
            await list.reload();
          }}
        />
      ) : null}
    </div>
  );
}

function SentLog({ adminApp }: { adminApp: StackAdminApp }) {
  const sent = useLoad(() => adminApp.listSentEmails(), [adminApp]);
  return (
    <div className="vs-stack">
      <ErrorAlert error={sent.error} />
      <Table
        caption="Sent e-mails"
        rows={sent.value ?? []}
        loadingRows={sent.status === "loading" ? 3 : 0}
        rowKey={(e) => e.id}
        empty="No e-mails sent yet."
        columns={[
          { key: "t", header: "To", render: (e) => e.to.join(", ") },
          { key: "s", header: "Subject", render: (e) => e.subject },
          { key: "d", header: "Sent", render: (e) => e.sentAt.toLocaleString(), hideOnPhone: true },
          { key: "e", header: "Status", render: (e) => (e.error ? <span className="vs-badge vs-badge-warn">Failed</span> : <span className="vs-badge vs-badge-ok">Sent</span>) },
        ]}
      />
    </div>
  );
}

/** One message of `GET /dev/mailbox` (deploy/src/dev-mailbox-http.ts). */
interface MailboxItem {
  id: string;
  to: string[];
  subject: string;
  html: string;
  text: string;
  received_at_millis: number;
}

/** The dev mailbox of this project: what the platform's dev SMTP server received (development only). */
function DevMailbox({ projectId, origin }: { projectId: string; origin: string }) {
  const [open, setOpen] = useState<string | null>(null);
  const mail = useLoad(async () => {
    const res = await fetch(`${origin}/dev/mailbox?project_id=${encodeURIComponent(projectId)}&limit=100`, { cache: "no-store" });
    if (!res.ok) throw new Error((await res.text()) || `The dev mailbox answered ${res.status}`);
    return ((await res.json()) as { items: MailboxItem[] }).items;
  }, [projectId, origin]);
  const item = mail.value?.find((m) => m.id === open);
  return (
    <div className="vs-stack">
      <div className="vs-spread">
        <p className="vs-muted" style={{ margin: 0 }}>Every e-mail the platform sent in development, newest first.</p>
        <Button small onClick={() => void mail.reload()}>Refresh</Button>
      </div>
      <ErrorAlert error={mail.error} />
      <Table
        caption="Dev mailbox"
        rows={mail.value ?? []}
        loadingRows={mail.status === "loading" ? 3 : 0}
        rowKey={(m) => m.id}
        onRowClick={(m) => setOpen(m.id)}
        empty="The mailbox is empty."
        columns={[
          { key: "t", header: "To", render: (m) => m.to.join(", ") },
          { key: "s", header: "Subject", render: (m) => <button type="button" className="vs-btn vs-btn-ghost vs-btn-small" onClick={() => setOpen(m.id)}>{m.subject}</button> },
          { key: "d", header: "Received", render: (m) => new Date(m.received_at_millis).toLocaleString(), hideOnPhone: true },
        ]}
      />
      {item ? <iframe title={`E-mail: ${item.subject}`} sandbox="allow-popups" srcDoc={item.html || `<pre>${item.text.replace(/</g, "&lt;")}</pre>`} style={{ width: "100%", height: 360, border: "1px solid var(--vs-border)", borderRadius: 8, background: "#fff" }} /> : null}
    </div>
  );
}

export default function EmailsArea({ adminApp, project, mode, frontendsOrigin }: AreaProps) {
  useTitle("E-mails · Vestibule");
  const tabs: { id: Tab; title: string }[] = [
    { id: "sender", title: "Sender" },
    { id: "themes", title: "Themes" },
    { id: "templates", title: "Templates" },
    { id: "drafts", title: "Drafts" },
    { id: "sent", title: "Sent" },
    ...(mode === "development" ? [{ id: "mailbox" as Tab, title: "Dev mailbox" }] : []),
  ];
  const [tab, setTab] = useState<Tab>("sender");
  return (
    <div className="vs-stack">
      <h1 style={{ margin: 0, fontSize: "1.5rem" }}>E-mails</h1>
      <TabList label="E-mail sections" idPrefix="emails" tabs={tabs} active={tab} onSelect={(id) => setTab(id as Tab)} />
      <Card {...tabPanelProps("emails", tab)} style={{ minHeight: 240 }}>
        {tab === "sender" ? <Sender adminApp={adminApp} /> : null}
        {tab === "themes" || tab === "templates" || tab === "drafts" ? <Collection key={tab} kind={tab} adminApp={adminApp} /> : null}
        {tab === "sent" ? <SentLog adminApp={adminApp} /> : null}
        {tab === "mailbox" ? <DevMailbox projectId={project.id} origin={frontendsOrigin ?? location.origin} /> : null}
      </Card>
      {mode !== "development" ? null : <Alert kind="info">Development mode: e-mails go to the dev mailbox instead of real inboxes.</Alert>}
    </div>
  );
}
