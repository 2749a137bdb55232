/**
 * Internal API keys of a project (publishable client key, secret server key, super secret admin key). A new key set
 * is shown in full exactly once, with the `.env` lines for the app's framework (env-snippet.ts); listings show the
 * last four characters. Keys can be revoked.
 */
import { useState, type FormEvent } from "react";
import type { InternalApiKeyFirstView } from "@vestibule/js";
import { Alert, ApiKeyTable, Button, ConfirmButton, Card, CopyField, ErrorAlert, Select, Switch, TextField, loadRuntimeConfig, useAction, useLoad, useTitle, type AreaProps } from "@vestibule/ui";
import { FRAMEWORKS, envSnippet, type Framework } from "./env-snippet.ts";

const EXPIRY = [
  { value: "30", label: "30 days" },
  { value: "90", label: "90 days" },
  { value: "365", label: "1 year" },
  { value: "3650", label: "10 years" },
];

const last = (k: { lastFour: string } | null) => (k ? <code className="vs-code">…{k.lastFour}</code> : "—");

/** The new keys as `.env` lines, for the framework chosen. */
function EnvSnippet({ keys, projectId, apiUrl }: { keys: InternalApiKeyFirstView; projectId: string; apiUrl: string | null }) {
  const [framework, setFramework] = useState<Framework>("nextjs");
  return (
    <div className="vs-stack" style={{ gap: 8 }}>
      <div style={{ maxWidth: 280 }}>
        <Select label="Your app's framework" value={framework} onChange={(v) => setFramework(v as Framework)} options={FRAMEWORKS.map((f) => ({ ...f }))} />
      </div>
      <CopyField
        label=".env file"
        value={envSnippet(framework, { projectId, apiUrl, publishableClientKey: keys.publishableClientKey, secretServerKey: keys.secretServerKey, superSecretAdminKey: keys.superSecretAdminKey })}
      />
      {framework === "vite" ? (
        <span className="vs-muted">Vite exposes only VITE_ variables to your code: pass them to the SDK (baseUrl, projectId, publishableClientKey).</span>
      ) : null}
    </div>
  );
}

export default function KeysArea({ adminApp, project, frontendsOrigin }: AreaProps) {
  useTitle("API keys · Vestibule");
  // The API's address for the .env lines (absent where the area runs without the platform's config).
  const apiUrl = useLoad(async () => (await loadRuntimeConfig(frontendsOrigin ?? "").catch(() => null))?.apiUrl ?? null, [frontendsOrigin]);
  const keys = useLoad(() => adminApp.listInternalApiKeys(), [adminApp]);
  const [description, setDescription] = useState("");
  const [expiry, setExpiry] = useState("365");
  const [kinds, setKinds] = useState({ publishable: true, secret: true, admin: false });
  const [created, setCreated] = useState<InternalApiKeyFirstView | null>(null);
  const [touched, setTouched] = useState(false);
  const [create, createState] = useAction(async () => {
    const k = await adminApp.createInternalApiKey({
      description: description.trim(),
      expiresAt: new Date(Date.now() + Number(expiry) * 86_400_000),
      hasPublishableClientKey: kinds.publishable,
      hasSecretServerKey: kinds.secret,
      hasSuperSecretAdminKey: kinds.admin,
    });
    setCreated(k);
    setDescription("");
    setTouched(false);
    await keys.reload();
  });
  const noKind = !kinds.publishable && !kinds.secret && !kinds.admin;
  return (
    <div className="vs-stack">
      <h1 style={{ margin: 0, fontSize: "1.5rem" }}>API keys</h1>
      {created ? (
        <Alert kind="success" title="Copy these keys now: they will not be shown again.">
          <div className="vs-stack" style={{ marginTop: 8 }}>
            {created.publishableClientKey ? <CopyField label="Publishable client key" value={created.publishableClientKey} /> : null}
            {created.secretServerKey ? <CopyField label="Secret server key" value={created.secretServerKey} /> : null}
            {created.superSecretAdminKey ? <CopyField label="Super secret admin key" value={created.superSecretAdminKey} /> : null}
            <EnvSnippet keys={created} projectId={project.id} apiUrl={apiUrl.value ?? null} />
            <div>
              <Button small onClick={() => setCreated(null)}>
                I have copied them
              </Button>
            </div>
          </div>
        </Alert>
      ) : null}
      <ApiKeyTable
        caption="API key sets"
        keys={keys}
        loadingRows={3}
        keyColumns={[
          { key: "p", header: "Publishable", render: (k) => last(k.publishableClientKey), hideOnPhone: true },
          { key: "s", header: "Secret", render: (k) => last(k.secretServerKey), hideOnPhone: true },
          { key: "a", header: "Admin", render: (k) => last(k.superSecretAdminKey), hideOnPhone: true },
        ]}
        // On a phone, description, status and Revoke fit the width; with the expiry too, Revoke went off-screen.
        expiresHideOnPhone
        revokeControl={(k, revoke) => (
          <ConfirmButton
            title={`Revoke the key set "${k.description || k.id}"?`}
            message="Apps and servers using these keys stop working at once. This cannot be undone."
            confirmLabel="Revoke keys"
            disabled={revoke.pending}
            onConfirm={() => revoke.run()}
          >
            Revoke<span className="vs-sr-only"> {k.description || k.id}</span>
          </ConfirmButton>
        )}
      />
      <Card>
        <form
          className="vs-stack"
          noValidate
          onSubmit={(e: FormEvent) => {
            e.preventDefault();
            setTouched(true);
            if (description.trim() && !noKind) void create();
          }}
        >
          <h2 style={{ margin: 0, fontSize: "1.15rem" }}>Create a key set</h2>
          <div className="vs-grid-2">
            <TextField label="Description" value={description} onChange={setDescription} error={touched && !description.trim() ? "Please describe where the keys are used." : null} />
            <Select label="Expires after" value={expiry} onChange={setExpiry} options={EXPIRY} />
          </div>
          <Switch label="Publishable client key" description="For your frontend." checked={kinds.publishable} onChange={(v) => setKinds({ ...kinds, publishable: v })} />
          <Switch label="Secret server key" description="For your backend; never ship it to browsers." checked={kinds.secret} onChange={(v) => setKinds({ ...kinds, secret: v })} />
          <Switch label="Super secret admin key" description="Full admin access to the project configuration." checked={kinds.admin} onChange={(v) => setKinds({ ...kinds, admin: v })} />
          {touched && noKind ? <Alert kind="error">Choose at least one kind of key.</Alert> : null}
          <ErrorAlert error={createState.error} />
          <div>
            <Button type="submit" variant="primary" loading={createState.pending}>
              Create keys
            </Button>
          </div>
        </form>
      </Card>
    </div>
  );
}
