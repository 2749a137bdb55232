/**
 * E-mail of a project: the sender (shared server or the project's own SMTP, with a test e-mail), themes, templates
 * and drafts (a TSX code editor with a live preview; each template's theme; a draft sent to a segment of users), the
 * sent log and, in development, the dev mailbox.
 */
import { useMemo, useState, type FormEvent, type ReactNode } from "react";
import type { StackAdminApp } from "@vestibule/js";
import { Alert, Button, Card, ErrorAlert, Progress, Select, TabList, Table, TextField, tabPanelProps, useAction, useLoad, useTitle, type AreaProps } from "@vestibule/ui";
import { useDebounced } from "@vestibule/ui/debounce";
import { CodeEditor } from "./code-editor.tsx";
import { renderProblem, type EditedPart } from "./render-problem.ts";
import { SendDraft } from "./send-draft.tsx";

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

/** What POST /emails/render-email answers: the HTML and the subject the template declares. */
interface Rendered {
  readonly html: string;
  readonly subject?: string;
}

/** How long the source must rest before the preview renders it again. */
const PREVIEW_DELAY_MS = 600;

/** The template a theme is previewed with. */
const THEME_SAMPLE = `import { Subject } from "@vestibule/emails";
export function EmailTemplate() { return <><Subject value="Theme preview" /><p>This is how your e-mails look in this theme.</p></>; }`;

/**
 * A TSX code editor with a live preview (POST /emails/render-email, 600 ms after the last keystroke; a stale answer
 * is dropped): the subject, the HTML in a sandboxed frame, rendered in the e-mail's own theme or another one, and a
 * compile error marked at its line with a sentence above the editor. Saving renders the source first: an empty source
 * or one that does not compile is refused with the reason, and nothing is saved.
 */
function SourceEditor(props: {
  title: string;
  part: EditedPart;
  source: string;
  /** Themes to preview the e-mail in besides its own; none for a theme's own editor. */
  themes?: readonly { id: string; displayName: string }[];
  render: (src: string, themeId: string | null) => Promise<Rendered>;
  onSave: (src: string) => Promise<void>;
  children?: ReactNode;
}) {
  const { title, part, source, themes, render, onSave, children } = props;
  const [text, setText] = useState(source);
  const [saved, setSaved] = useState(false);
  const [previewTheme, setPreviewTheme] = useState("");
  const settled = useDebounced(text, PREVIEW_DELAY_MS);
  const preview = useLoad(() => render(settled, previewTheme || null), [settled, previewTheme]);
  const failure = preview.status === "error" ? preview.error : null;
  const problem = useMemo(() => (failure ? renderProblem(failure, part) : null), [failure, part]);
  const [save, saveState] = useAction(async () => {
    if (!text.trim()) throw new Error("The source is empty. Nothing was saved: write the TSX source first.");
    try {
      await render(text, null);
    } catch (err) {
      const why = renderProblem(err, part);
      if (!why) throw err;
      throw new Error(`This source does not compile, so it was not saved. ${why.sentence}`);
    }
    await onSave(text);
    setSaved(true);
  });
  const html = preview.value?.html;
  return (
    <div className="vs-stack">
      <h3 style={{ margin: 0 }}>{title}</h3>
      <div className="vs-grid-2">
        <CodeEditor
          label="TSX source"
          value={text}
          problem={problem}
          onChange={(v) => {
            setText(v);
            setSaved(false);
          }}
        />
        <div className="vs-field">
          <div className="vs-spread">
            <span className="vs-label">Preview</span>
            {themes ? (
              <Select
                label="Preview theme"
                value={previewTheme}
                onChange={setPreviewTheme}
                options={[{ value: "", label: "Its own theme" }, ...themes.map((t) => ({ value: t.id, label: t.displayName }))]}
              />
            ) : null}
          </div>
          <p style={{ margin: 0 }}>
            <span className="vs-muted">Subject: </span>
            <strong data-testid="preview-subject">{preview.value ? (preview.value.subject ?? "none (add <Subject value=\"…\" />)") : "…"}</strong>
          </p>
          {preview.status === "loading" || settled !== text ? <Progress label="Rendering the preview" /> : null}
          <iframe
            title={`Preview of ${title}`}
            sandbox=""
            srcDoc={html ?? "<p style='font-family:sans-serif;color:#666'>Rendering…</p>"}
            style={{ width: "100%", height: 360, border: "1px solid var(--vs-border)", borderRadius: 8, background: "#fff" }}
          />
        </div>
      </div>
      {preview.status === "error" && !problem ? <ErrorAlert error={preview.error} /> : null}
      <ErrorAlert error={saveState.error} />
      {saved ? <Alert kind="success">Saved.</Alert> : null}
      <div className="vs-row">
        <Button variant="primary" onClick={() => void save()} loading={saveState.pending}>
          Save
        </Button>
        {children}
      </div>
    </div>
  );
}

/** `theme_id` of a template as the Select's value: "" the project's theme, "none" no theme, else the theme's id. */
const themeValue = (id: string | false | undefined) => (id === undefined ? "" : id === false ? "none" : id);
const themeOfValue = (v: string): string | null | false => (v === "" ? null : v === "none" ? false : v);

/** The theme a template is sent in, saved as soon as it is chosen (PATCH /internal/email-templates/{id}). */
function TemplateTheme({ adminApp, template, themes, onSaved }: { adminApp: StackAdminApp; template: { id: string; tsxSource: string; themeId?: string | false }; themes: readonly { id: string; displayName: string }[]; onSaved: () => Promise<void> }) {
  const [choose, state] = useAction(async (value: string) => {
    await adminApp.updateEmailTemplate(template.id, template.tsxSource, themeOfValue(value));
    await onSaved();
  });
  return (
    <div className="vs-stack" style={{ gap: 4 }}>
      <Select
        label="Theme of this template"
        value={themeValue(template.themeId)}
        disabled={state.pending}
        onChange={(v) => void choose(v)}
        options={[{ value: "", label: "The project's theme" }, { value: "none", label: "No theme" }, ...themes.map((t) => ({ value: t.id, label: t.displayName }))]}
      />
      <ErrorAlert error={state.error} />
    </div>
  );
}

type Listed = { id: string; displayName: string; tsxSource?: string; themeId?: string | false; sentAt?: Date | null };

function Collection({ kind, adminApp }: { kind: "themes" | "templates" | "drafts"; adminApp: StackAdminApp }) {
  const list = useLoad(async (): Promise<Listed[]> => {
    if (kind === "themes") return adminApp.listEmailThemes();
    if (kind === "templates") return adminApp.listEmailTemplates();
    return adminApp.listEmailDrafts();
  }, [adminApp, kind]);
  const themes = useLoad(async () => (kind === "themes" ? [] : adminApp.listEmailThemes()), [adminApp, kind]);
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
  /** The theme an e-mail is previewed in: the one picked in the preview, else its own (a template's or draft's). */
  const ownTheme = (i: Listed): string | null | false => (i.themeId === undefined ? null : i.themeId);
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
      {item && kind === "templates" && themes.value ? <TemplateTheme adminApp={adminApp} template={{ ...item, tsxSource: item.tsxSource ?? "" }} themes={themes.value} onSaved={list.reload} /> : null}
      {item && (kind !== "themes" || loadedTheme) ? (
        <SourceEditor
          key={item.id}
          title={item.displayName}
          part={kind === "themes" ? "theme" : "template"}
          source={kind === "themes" ? loadedTheme!.tsxSource : (item.tsxSource ?? "")}
          themes={kind === "themes" ? undefined : themes.value}
          render={(src, themeId) =>
            kind === "themes"
              ? adminApp.renderEmail({ themeTsxSource: src, templateTsxSource: THEME_SAMPLE })
              : adminApp.renderEmail({ templateTsxSource: src, themeId: themeId ?? ownTheme(item) })
          }
          onSave={async (src) => {
            if (kind === "themes") await adminApp.updateEmailTheme(item.id, src);
            else if (kind === "templates") await adminApp.updateEmailTemplate(item.id, src, ownTheme(item));
            else await adminApp.updateEmailDraft(item.id, { tsxSource: src });
            await list.reload();
          }}
        >
          {kind === "drafts" ? <SendDraft adminApp={adminApp} draft={item} onSent={() => void list.reload()} /> : null}
        </SourceEditor>
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
