/**
 * Auth methods and trusted domains of a project: which sign-in methods are on, OAuth providers (shared keys or the
 * project's own), sign-up and team settings, the trusted domains redirects may go to, and — whatever the project's
 * mode — the production-mode checks with links that jump to what fixes each problem.
 */
import { useEffect, useState, type FormEvent } from "react";
import type { AdminProject, AdminProjectConfig } from "@vestibule/js";
import { Alert, Button, Card, ConfirmButton, ErrorAlert, Link, Select, Skeleton, Switch, Table, TextField, useAction, useLoad, useLocation, useTitle, type AreaProps } from "@vestibule/ui";
import { productionModeChecks } from "@vestibule/ui/production-checks";

type Toggle = keyof Pick<AdminProjectConfig, "credentialEnabled" | "magicLinkEnabled" | "passkeyEnabled" | "signUpEnabled" | "clientTeamCreationEnabled" | "createTeamOnSignUp" | "clientUserDeletionEnabled" | "allowUserApiKeys" | "allowTeamApiKeys">;

const METHODS: readonly { key: Toggle; label: string; description: string }[] = [
  { key: "credentialEnabled", label: "E-mail and password", description: "Sign up and sign in with an e-mail address and a password." },
  { key: "magicLinkEnabled", label: "Magic link / e-mail code", description: "A one-time link and code sent by e-mail." },
  { key: "passkeyEnabled", label: "Passkeys", description: "Sign in with a passkey (WebAuthn)." },
];
const USERS: readonly { key: Toggle; label: string; description: string }[] = [
  { key: "signUpEnabled", label: "Allow sign-up", description: "New users can create accounts themselves." },
  { key: "clientUserDeletionEnabled", label: "Users can delete their account", description: "Offered in account settings." },
  { key: "clientTeamCreationEnabled", label: "Users can create teams", description: "From your app, without your server." },
  { key: "createTeamOnSignUp", label: "Personal team on sign-up", description: "Every new user gets a team of their own." },
  { key: "allowUserApiKeys", label: "User API keys", description: "Users can create API keys for themselves." },
  { key: "allowTeamApiKeys", label: "Team API keys", description: "Teams can create API keys." },
];
const PROVIDERS = ["google", "github", "microsoft", "spotify", "facebook", "discord", "gitlab", "bitbucket", "linkedin", "apple", "x", "twitch"];

function Toggles({ project, items, onChange }: { project: AdminProject; items: typeof METHODS; onChange: () => Promise<void> }) {
  const [set, state] = useAction(async (key: Toggle, value: boolean) => {
    await project.update({ config: { [key]: value } });
    await onChange();
  });
  return (
    <div className="vs-stack">
      {items.map((m) => (
        <Switch key={m.key} label={m.label} description={m.description} checked={!!project.config[m.key]} disabled={state.pending} onChange={(v) => void set(m.key, v)} />
      ))}
      <ErrorAlert error={state.error} />
    </div>
  );
}

/** Shared platform keys exist for these (in development every provider uses the development identity provider). */
const SHARED_KEY_PROVIDERS = ["google", "github", "microsoft", "spotify"];

type ConfiguredProvider = { id: string; type?: string; clientId?: string; clientSecret?: string; facebookConfigId?: string; microsoftTenantId?: string };

/**
 * The project's OAuth providers: each with the platform's shared keys or the project's own client id and secret. The
 * secret is typed once and sent with the update; the page never shows it again (the list shows the client id only).
 */
function OAuthProviders({ project, onChange }: { project: AdminProject; onChange: () => Promise<void> }) {
  const configured = project.config.oauthProviders as readonly ConfiguredProvider[];
  const remaining = PROVIDERS.filter((p) => !configured.some((c) => c.id === p));
  const [adding, setAdding] = useState(remaining[0] ?? "google");
  const [keys, setKeys] = useState<"shared" | "standard">("shared");
  const [clientId, setClientId] = useState("");
  const [clientSecret, setClientSecret] = useState("");
  const [extra, setExtra] = useState("");
  const [touched, setTouched] = useState(false);
  const [saved, setSaved] = useState<string | null>(null);
  const [save, state] = useAction(async (list: Record<string, unknown>[], note: string | null) => {
    await project.update({ config: { oauthProviders: list } });
    setSaved(note);
    await onChange();
  });
  const asWire = (p: ConfiguredProvider) => ({
    id: p.id,
    type: p.type ?? "shared",
    ...(p.type === "standard" ? { clientId: p.clientId, clientSecret: p.clientSecret, facebookConfigId: p.facebookConfigId, microsoftTenantId: p.microsoftTenantId } : {}),
  });
  const provider = remaining.includes(adding) ? adding : (remaining[0] ?? adding);
  const sharedPossible = SHARED_KEY_PROVIDERS.includes(provider);
  const mode = sharedPossible ? keys : "standard";
  const idError = touched && mode === "standard" && !clientId.trim() ? "Enter the client ID from the provider." : null;
  const secretError = touched && mode === "standard" && !clientSecret ? "Enter the client secret from the provider." : null;
  const extraLabel = provider === "facebook" ? "Facebook configuration ID (optional)" : provider === "microsoft" ? "Microsoft tenant ID (optional)" : null;
  const add = () => {
    setTouched(true);
    if (mode === "standard" && (!clientId.trim() || !clientSecret)) return;
    const entry: Record<string, unknown> =
      mode === "shared"
        ? { id: provider, type: "shared" }
        : {
            id: provider,
            type: "standard",
            clientId: clientId.trim(),
            clientSecret,
            ...(provider === "facebook" && extra.trim() ? { facebookConfigId: extra.trim() } : {}),
            ...(provider === "microsoft" && extra.trim() ? { microsoftTenantId: extra.trim() } : {}),
          };
    void save([...configured.map(asWire), entry], mode === "standard" ? `${provider}: client secret saved. It is not shown again.` : null).then(() => {
      setClientId("");
      setClientSecret("");
      setExtra("");
      setTouched(false);
    });
  };
  return (
    <div className="vs-stack">
      <Table
        caption="OAuth providers"
        rows={configured}
        rowKey={(p) => p.id}
        empty="No OAuth provider yet."
        columns={[
          { key: "id", header: "Provider", render: (p) => p.id },
          { key: "t", header: "Keys", render: (p) => (p.type === "standard" ? `Own (client ${p.clientId ?? "?"})` : "Shared keys") },
          {
            key: "a",
            header: <span className="vs-sr-only">Actions</span>,
            render: (p) => (
              <ConfirmButton
                title={`Remove ${p.id} sign-in?`}
                message={`Users can no longer sign in with ${p.id}.${p.type === "standard" ? " The saved client secret is deleted." : ""}`}
                confirmLabel={`Remove ${p.id}`}
                disabled={state.pending}
                onConfirm={() => save(configured.filter((c) => c.id !== p.id).map(asWire), null)}
              >
                Remove<span className="vs-sr-only"> {p.id}</span>
              </ConfirmButton>
            ),
          },
        ]}
      />
      {saved ? <Alert kind="success">{saved}</Alert> : null}
      {remaining.length > 0 ? (
        <form
          className="vs-stack"
          noValidate
          aria-label="Add an OAuth provider"
          onSubmit={(e: FormEvent) => {
            e.preventDefault();
            add();
          }}
        >
          <div className="vs-grid-2">
            <Select label="Add a provider" value={provider} onChange={setAdding} options={remaining.map((p) => ({ value: p, label: p }))} />
            <Select
              label="Keys"
              value={mode}
              onChange={(v) => setKeys(v as "shared" | "standard")}
              options={sharedPossible ? [{ value: "shared", label: "Shared keys" }, { value: "standard", label: "Own client ID and secret" }] : [{ value: "standard", label: "Own client ID and secret" }]}
            />
          </div>
          {mode === "standard" ? (
            <div className="vs-grid-2">
              <TextField label="Client ID" value={clientId} onChange={setClientId} error={idError} />
              <TextField label="Client secret" type="password" value={clientSecret} onChange={setClientSecret} error={secretError} autoComplete="off" />
              {extraLabel ? <TextField label={extraLabel} value={extra} onChange={setExtra} /> : null}
            </div>
          ) : null}
          <div>
            <Button type="submit" disabled={state.pending}>
              Add {provider}
            </Button>
          </div>
        </form>
      ) : null}
      <ErrorAlert error={state.error} />
    </div>
  );
}

/** The trusted domains list (redirect targets), with the allow-localhost switch. Anchor: #domains. */
function Domains({ project, onChange }: { project: AdminProject; onChange: () => Promise<void> }) {
  const [domain, setDomain] = useState("");
  const [handlerPath, setHandlerPath] = useState("/handler");
  const [touched, setTouched] = useState(false);
  const [save, state] = useAction(async (domains: { domain: string; handlerPath: string }[]) => {
    await project.update({ config: { domains } });
    await onChange();
  });
  const [setLocalhost, localhostState] = useAction(async (allow: boolean) => {
    await project.update({ config: { allowLocalhost: allow } });
    await onChange();
  });
  const list = project.config.domains;
  let domainError: string | null = null;
  if (touched) {
    try {
      const u = new URL(domain.trim().replace(/\*/g, "wildcard"));
      if (u.protocol !== "http:" && u.protocol !== "https:") domainError = "Trusted domains must start with http:// or https://.";
    } catch {
      domainError = "Enter a URL such as https://app.example.com";
    }
  }
  const pathError = touched && !handlerPath.startsWith("/") ? "The handler path must start with a slash (/)" : null;
  return (
    <div className="vs-stack">
      <div id="allow-localhost">
        <Switch label="Allow localhost" description="Redirects to localhost, *.localhost and 127.x.x.x are trusted (development)." checked={project.config.allowLocalhost} disabled={localhostState.pending} onChange={(v) => void setLocalhost(v)} />
      </div>
      <ErrorAlert error={localhostState.error} />
      <Table
        caption="Trusted domains"
        rows={list}
        rowKey={(d) => d.domain}
        empty="No trusted domain yet."
        columns={[
          { key: "d", header: "Domain", render: (d) => <code className="vs-code">{d.domain}</code> },
          { key: "h", header: "Handler path", render: (d) => d.handlerPath, hideOnPhone: true },
          {
            key: "a",
            header: <span className="vs-sr-only">Actions</span>,
            render: (d) => (
              <ConfirmButton
                title={`Remove the domain ${d.domain}?`}
                message="Sign-in redirects and e-mail links to this domain stop working."
                confirmLabel="Remove domain"
                disabled={state.pending}
                onConfirm={() => save(list.filter((x) => x.domain !== d.domain))}
              >
                Remove<span className="vs-sr-only"> {d.domain}</span>
              </ConfirmButton>
            ),
          },
        ]}
      />
      <form
        className="vs-row"
        style={{ alignItems: "flex-start" }}
        noValidate
        aria-label="Add a trusted domain"
        onSubmit={(e: FormEvent) => {
          e.preventDefault();
          setTouched(true);
          const d = domain.trim();
          try {
            new URL(d.replace(/\*/g, "wildcard"));
          } catch {
            return;
          }
          if (!handlerPath.startsWith("/")) return;
          void save([...list.filter((x) => x.domain !== d), { domain: d, handlerPath }]).then(() => {
            setDomain("");
            setTouched(false);
          });
        }}
      >
        <div style={{ flex: "2 1 260px" }}>
          <TextField label="Domain" placeholder="https://app.example.com" value={domain} onChange={setDomain} error={domainError} />
        </div>
        <div style={{ flex: "1 1 140px" }}>
          <TextField label="Handler path" value={handlerPath} onChange={setHandlerPath} error={pathError} />
        </div>
        <Button type="submit" variant="primary" loading={state.pending} style={{ marginTop: 28 }}>
          Add domain
        </Button>
      </form>
      <ErrorAlert error={state.error} />
    </div>
  );
}

export function ProductionChecks({ project, domainsHref }: { project: AdminProject; domainsHref: (fix: string) => string }) {
  const problems = productionModeChecks(project.config);
  if (problems.length === 0) {
    return <Alert kind="success">{project.isProductionMode ? "Production mode is on and the domain settings pass its checks." : "The domain settings are ready for production mode."}</Alert>;
  }
  return (
    <Alert kind="warning" title={project.isProductionMode ? "Production mode: fix these problems" : "Before you switch to production mode, fix these problems"}>
      <ul style={{ margin: "6px 0 0", paddingLeft: 20 }} data-testid="production-checks">
        {problems.map((p) => (
          <li key={p.message}>
            {p.message} — <Link href={domainsHref(p.fix)}>Fix</Link>
          </li>
        ))}
      </ul>
    </Alert>
  );
}

export default function AuthArea({ adminApp, basePath }: AreaProps) {
  useTitle("Auth methods · Vestibule");
  const project = useLoad(() => adminApp.getProject(), [adminApp]);
  const { href } = useLocation();
  useEffect(() => {
    const id = new URL(href, "http://x").hash.slice(1);
    if (id && project.value) document.getElementById(id)?.scrollIntoView();
  }, [href, project.value]);
  if (!project.value) {
    return (
      <div className="vs-stack">
        <h1 style={{ margin: 0, fontSize: "1.5rem" }}>Auth methods &amp; domains</h1>
        <ErrorAlert error={project.error} />
        {project.status === "loading" ? <Skeleton height={320} /> : null}
      </div>
    );
  }
  const p = project.value;
  return (
    <div className="vs-stack">
      <h1 style={{ margin: 0, fontSize: "1.5rem" }}>Auth methods &amp; domains</h1>
      <ProductionChecks project={p} domainsHref={(fix) => `${basePath}#${fix}`} />
      <Card className="vs-section">
        <h2>Sign-in methods</h2>
        <Toggles project={p} items={METHODS} onChange={project.reload} />
      </Card>
      <Card className="vs-section">
        <h2>OAuth providers</h2>
        <OAuthProviders project={p} onChange={project.reload} />
      </Card>
      <Card className="vs-section">
        <h2>Users and teams</h2>
        <Toggles project={p} items={USERS} onChange={project.reload} />
      </Card>
      <Card className="vs-section" id="domains">
        <h2>Trusted domains</h2>
        <p className="vs-muted" style={{ margin: 0 }}>
          Sign-in redirects and e-mail links may only lead to these domains.
        </p>
        <Domains project={p} onChange={project.reload} />
      </Card>
    </div>
  );
}
