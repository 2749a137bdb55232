/**
 * Outgoing webhooks of a project: endpoints (add, edit, enable/disable, delete), the event types each receives, the
 * signing secret (shown once, rotatable with an overlap window), "send test event", the attempt log with filters,
 * re-send of one message and replay since a time. The page first gets a webhook portal token (POST
 * /webhooks/svix-token, the published SDK's getSvixToken) and sends it with every call of /internal/webhooks/*.
 */
import { useState, type FormEvent } from "react";
import { Alert, Button, Card, ConfirmButton, CopyField, ErrorAlert, Select, Switch, Table, TextField, useAction, useLoad, useTitle, type AreaProps } from "@vestibule/ui";

interface Endpoint {
  id: string;
  url: string;
  description: string;
  event_types: string[];
  enabled: boolean;
  disabled_reason: string | null;
  failing_since_millis: number | null;
  previous_secret_expires_at_millis: number | null;
}
interface Attempt {
  id: string;
  message_id: string;
  endpoint_id: string;
  event_type: string;
  attempted_at_millis: number;
  response_status: number | null;
  succeeded: boolean;
  latency_ms: number;
  response_excerpt: string;
  error: string | null;
  trigger: string;
}

/** `eventTypes`: what endpoints can subscribe to, as the API lists it (`/internal/webhooks/event-types`). */
function EndpointForm({ initial, eventTypes, onSave, saving, submitLabel }: { initial?: Endpoint; eventTypes: readonly string[]; onSave: (e: { url: string; description: string; event_types: string[] }) => void; saving: boolean; submitLabel: string }) {
  const [url, setUrl] = useState(initial?.url ?? "");
  const [description, setDescription] = useState(initial?.description ?? "");
  const [all, setAll] = useState((initial?.event_types.length ?? 0) === 0);
  const [types, setTypes] = useState<string[]>(initial?.event_types ?? []);
  const [touched, setTouched] = useState(false);
  const urlError = touched && !/^https?:\/\/\S+$/.test(url.trim()) ? "Enter an http or https URL." : null;
  const typesError = touched && !all && types.length === 0 ? "Choose at least one event type, or all." : null;
  return (
    <form
      className="vs-stack"
      noValidate
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        setTouched(true);
        if (/^https?:\/\/\S+$/.test(url.trim()) && (all || types.length > 0)) onSave({ url: url.trim(), description: description.trim(), event_types: all ? [] : types });
      }}
    >
      <div className="vs-grid-2">
        <TextField label="Endpoint URL" value={url} onChange={setUrl} placeholder="https://example.com/webhooks" error={urlError} />
        <TextField label="Description" value={description} onChange={setDescription} />
      </div>
      <Switch label="All event types" description="Receive every event type, including ones added later." checked={all} onChange={setAll} />
      {all ? null : (
        <fieldset className="vs-stack" style={{ border: 0, padding: 0, margin: 0 }}>
          <legend className="vs-label">Event types</legend>
          <div className="vs-grid-2">
            {eventTypes.map((t) => (
              <Switch key={t} label={t} checked={types.includes(t)} onChange={(on) => setTypes(on ? [...types, t] : types.filter((x) => x !== t))} />
            ))}
          </div>
        </fieldset>
      )}
      {typesError ? <Alert kind="error">{typesError}</Alert> : null}
      <div>
        <Button type="submit" variant="primary" loading={saving}>
          {submitLabel}
        </Button>
      </div>
    </form>
  );
}

export default function WebhooksArea({ adminApp }: AreaProps) {
  useTitle("Webhooks · Vestibule");
  const portal = useLoad(() => adminApp.getSvixToken(), [adminApp]);
  const token = portal.value?.token;
  const api = <T,>(path: string, init: { method?: string; body?: unknown; query?: Record<string, string | number | undefined> } = {}) => adminApp.webhooksApi<T>(token!, path, init);
  const endpoints = useLoad(async () => (token ? (await api<{ items: Endpoint[] }>("/endpoints")).items : undefined), [adminApp, token]);
  const eventTypes = useLoad(async () => (token ? (await api<{ items: { id: string }[] }>("/event-types")).items.map((t) => t.id) : []), [adminApp, token]).value ?? [];
  const [filters, setFilters] = useState({ endpoint_id: "", status: "", event_type: "" });
  const attempts = useLoad(
    async () => (token ? (await api<{ items: Attempt[] }>("/attempts", { query: { limit: 100, endpoint_id: filters.endpoint_id || undefined, status: filters.status || undefined, event_type: filters.event_type || undefined } })).items : undefined),
    [adminApp, token, filters.endpoint_id, filters.status, filters.event_type],
  );
  const [secret, setSecret] = useState<{ endpoint: string; secret: string } | null>(null);
  const [editing, setEditing] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [since, setSince] = useState("");
  const reloadAll = async () => {
    await endpoints.reload();
    await attempts.reload();
  };
  const [create, createState] = useAction(async (e: { url: string; description: string; event_types: string[] }) => {
    const r = await api<Endpoint & { secret: string }>("/endpoints", { method: "POST", body: e });
    setSecret({ endpoint: r.url, secret: r.secret });
    await endpoints.reload();
  });
  const [save, saveState] = useAction(async (id: string, e: Partial<Endpoint>) => {
    await api(`/endpoints/${id}`, { method: "PATCH", body: e });
    setEditing(null);
    await endpoints.reload();
  });
  const [remove, removeState] = useAction(async (id: string) => {
    await api(`/endpoints/${id}`, { method: "DELETE" });
    await reloadAll();
  });
  const [rotate, rotateState] = useAction(async (ep: Endpoint) => {
    const r = await api<Endpoint & { secret: string }>(`/endpoints/${ep.id}/rotate-secret`, { method: "POST", body: {} });
    setSecret({ endpoint: ep.url, secret: r.secret });
    await endpoints.reload();
  });
  const [test, testState] = useAction(async (ep: Endpoint) => {
    await api(`/endpoints/${ep.id}/test`, { method: "POST", body: {} });
    setNotice(`Test event queued for ${ep.url}.`);
    setTimeout(() => void attempts.reload(), 1500);
  });
  const [resend, resendState] = useAction(async (messageId: string) => {
    await api(`/messages/${encodeURIComponent(messageId)}/resend`, { method: "POST", body: {} });
    setNotice(`Message ${messageId} queued again.`);
    setTimeout(() => void attempts.reload(), 1500);
  });
  const [replay, replayState] = useAction(async (ep: Endpoint) => {
    const r = await api<{ queued: number }>(`/endpoints/${ep.id}/replay`, { method: "POST", body: { since_millis: new Date(since).getTime() } });
    setNotice(`${r.queued} message(s) to ${ep.url} queued again.`);
  });
  const list = endpoints.value ?? [];
  const error = portal.error ?? endpoints.error ?? saveState.error ?? removeState.error ?? rotateState.error ?? testState.error ?? resendState.error ?? replayState.error;
  return (
    <div className="vs-stack">
      <h1 style={{ margin: 0, fontSize: "1.5rem" }}>Webhooks</h1>
      {secret ? (
        <Alert kind="success" title="Copy the signing secret now: it will not be shown again.">
          <div className="vs-stack" style={{ marginTop: 8 }}>
            <CopyField label={`Signing secret of ${secret.endpoint}`} value={secret.secret} />
            <div>
              <Button small onClick={() => setSecret(null)}>
                I have copied it
              </Button>
            </div>
          </div>
        </Alert>
      ) : null}
      {notice ? (
        <Alert kind="info">
          {notice}{" "}
          <Button small onClick={() => setNotice(null)}>
            Dismiss
          </Button>
        </Alert>
      ) : null}
      <ErrorAlert error={error} />
      <Table
        caption="Endpoints"
        rows={list}
        loadingRows={endpoints.status === "loading" ? 2 : 0}
        rowKey={(e) => e.id}
        empty="No endpoints yet."
        columns={[
          { key: "u", header: "URL", render: (e) => <code className="vs-code">{e.url}</code> },
          { key: "d", header: "Description", render: (e) => e.description || "—", hideOnPhone: true },
          { key: "t", header: "Events", render: (e) => (e.event_types.length ? e.event_types.join(", ") : "All"), hideOnPhone: true },
          {
            key: "s",
            header: "Status",
            render: (e) =>
              e.enabled ? (
                <span className="vs-badge vs-badge-ok">{e.failing_since_millis ? "Failing" : "Enabled"}</span>
              ) : (
                <span className="vs-badge" title={e.disabled_reason ?? undefined}>
                  Disabled
                </span>
              ),
          },
          {
            key: "x",
            header: <span className="vs-sr-only">Actions</span>,
            render: (e) => (
              <div style={{ display: "flex", gap: 6, flexWrap: "wrap" }}>
                <Button small onClick={() => void test(e)} disabled={testState.pending}>
                  Send test event<span className="vs-sr-only"> to {e.url}</span>
                </Button>
                <Button small onClick={() => setEditing(editing === e.id ? null : e.id)}>
                  Edit<span className="vs-sr-only"> {e.url}</span>
                </Button>
                <Button small onClick={() => void save(e.id, { enabled: !e.enabled })}>
                  {e.enabled ? "Disable" : "Enable"}
                </Button>
                <ConfirmButton
                  title={`Rotate the signing secret of ${e.url}?`}
                  message="A new secret is shown once. The current one stays valid for a day, and deliveries carry both signatures meanwhile."
                  confirmLabel="Rotate secret"
                  onConfirm={() => rotate(e)}
                >
                  Rotate secret
                </ConfirmButton>
                <ConfirmButton
                  title={`Delete the endpoint ${e.url}?`}
                  message="Its messages and delivery attempts are deleted too. This cannot be undone."
                  confirmLabel="Delete endpoint"
                  disabled={removeState.pending}
                  onConfirm={() => remove(e.id)}
                >
                  Delete<span className="vs-sr-only"> {e.url}</span>
                </ConfirmButton>
              </div>
            ),
          },
        ]}
      />
      {editing && list.find((e) => e.id === editing) ? (
        <Card>
          <h2 style={{ margin: 0, fontSize: "1.15rem" }}>Edit endpoint</h2>
          <EndpointForm initial={list.find((e) => e.id === editing)} eventTypes={eventTypes} saving={saveState.pending} submitLabel="Save endpoint" onSave={(e) => void save(editing, e)} />
          <div className="vs-grid-2" style={{ alignItems: "end", marginTop: 12 }}>
            <TextField label="Replay messages since" type="datetime-local" value={since} onChange={setSince} />
            <div>
              <Button disabled={!since || replayState.pending} onClick={() => void replay(list.find((e) => e.id === editing)!)}>
                Replay
              </Button>
            </div>
          </div>
        </Card>
      ) : null}
      <Card>
        <h2 style={{ margin: 0, fontSize: "1.15rem" }}>Add an endpoint</h2>
        <ErrorAlert error={createState.error} />
        <EndpointForm key={list.length} eventTypes={eventTypes} saving={createState.pending} submitLabel="Add endpoint" onSave={(e) => void create(e)} />
      </Card>
      <h2 style={{ margin: 0, fontSize: "1.25rem" }}>Delivery attempts</h2>
      <div className="vs-grid-2">
        <Select
          label="Endpoint"
          value={filters.endpoint_id}
          onChange={(v) => setFilters({ ...filters, endpoint_id: v })}
          options={[{ value: "", label: "All endpoints" }, ...list.map((e) => ({ value: e.id, label: e.url }))]}
        />
        <Select
          label="Status"
          value={filters.status}
          onChange={(v) => setFilters({ ...filters, status: v })}
          options={[
            { value: "", label: "Any status" },
            { value: "succeeded", label: "Succeeded" },
            { value: "failed", label: "Failed" },
          ]}
        />
        <Select
          label="Event type"
          value={filters.event_type}
          onChange={(v) => setFilters({ ...filters, event_type: v })}
          options={[{ value: "", label: "Any event type" }, ...[...eventTypes, "test.event"].map((t) => ({ value: t, label: t }))]}
        />
        <div style={{ alignSelf: "end" }}>
          <Button onClick={() => void attempts.reload()}>Refresh</Button>
        </div>
      </div>
      <ErrorAlert error={attempts.error} />
      <Table
        caption="Delivery attempts"
        rows={attempts.value ?? []}
        loadingRows={attempts.status === "loading" ? 3 : 0}
        rowKey={(a) => a.id}
        empty="No delivery attempts yet."
        columns={[
          { key: "w", header: "When", render: (a) => new Date(a.attempted_at_millis).toLocaleString() },
          { key: "e", header: "Event", render: (a) => a.event_type },
          { key: "p", header: "Endpoint", render: (a) => list.find((e) => e.id === a.endpoint_id)?.url ?? a.endpoint_id, hideOnPhone: true },
          {
            key: "r",
            header: "Result",
            render: (a) => (
              <span className={a.succeeded ? "vs-badge vs-badge-ok" : "vs-badge"} title={a.error ?? a.response_excerpt}>
                {a.response_status ?? "no answer"} {a.succeeded ? "OK" : "failed"}
              </span>
            ),
          },
          { key: "l", header: "Latency", render: (a) => `${a.latency_ms} ms`, hideOnPhone: true },
          { key: "m", header: "Message", render: (a) => <code className="vs-code">{a.message_id}</code>, hideOnPhone: true },
          {
            key: "x",
            header: <span className="vs-sr-only">Actions</span>,
            render: (a) => (
              <Button small onClick={() => void resend(a.message_id)} disabled={resendState.pending}>
                Re-send<span className="vs-sr-only"> {a.message_id}</span>
              </Button>
            ),
          },
        ]}
      />
    </div>
  );
}
