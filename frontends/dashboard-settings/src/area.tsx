/**
 * Project settings: name and description, the project's hosted pages (hosted-pages.tsx), production mode (with the
 * domain checks that must pass), analytics on or off, transfer to another team of the owner, and deletion.
 */
import { useState, type FormEvent } from "react";
import { Alert, Button, Card, Dialog, ErrorAlert, Link, Select, Skeleton, Switch, TextField, navigate, useAction, useLoad, useTitle, type AreaProps } from "@vestibule/ui";
import { productionModeChecks } from "@vestibule/ui/production-checks";
import { HostedPagesCard } from "./hosted-pages.tsx";

export default function SettingsArea({ adminApp, owner, areaHref, frontendsOrigin }: AreaProps) {
  useTitle("Project settings · Vestibule");
  const project = useLoad(() => adminApp.getProject(), [adminApp]);
  const [form, setForm] = useState<{ name: string; description: string } | null>(null);
  const [saved, setSaved] = useState(false);
  const teams = useLoad(async () => (owner ? owner.listTeams() : []), [owner]);
  const [chosenTeam, setNewTeam] = useState("");
  const [transferred, setTransferred] = useState(false);
  const [confirm, setConfirm] = useState(false);
  const [confirmProduction, setConfirmProduction] = useState(false);
  const [typed, setTyped] = useState("");
  const p = project.value;
  const f = form ?? { name: p?.displayName ?? "", description: p?.description ?? "" };
  const [save, saveState] = useAction(async () => {
    await p!.update({ displayName: f.name.trim(), description: f.description });
    setSaved(true);
    await project.reload();
  });
  const [setProduction, productionState] = useAction(async (on: boolean) => {
    await p!.update({ isProductionMode: on });
    await project.reload();
  });
  // Analytics (apps.installed.analytics.enabled in the rendered config): on unless turned off.
  const rendered = useLoad(
    async () => (p ? ((await p.getConfig()) as { apps?: { installed?: { analytics?: { enabled?: boolean } } }; project?: { requirePublishableClientKey?: boolean } }) : null),
    [p],
  );
  const analyticsOn = rendered.value?.apps?.installed?.analytics?.enabled !== false;
  const [setAnalytics, analyticsState] = useAction(async (on: boolean) => {
    await p!.updateConfig({ "apps.installed.analytics.enabled": on });
    await rendered.reload();
  });
  const [transfer, transferState] = useAction(async () => {
    // A call of the signed-in owner on the internal project: they must be an admin of the current owner team and a
    // member of the new one.
    await p!.transfer(owner!, newTeam!);
    setTransferred(true);
    await project.reload();
  });
  const [remove, removeState] = useAction(async () => {
    await p!.delete();
    navigate("/");
  });
  if (!p) {
    return (
      <div className="vs-stack">
        <h1 style={{ margin: 0, fontSize: "1.5rem" }}>Project settings</h1>
        <ErrorAlert error={project.error} />
        {project.status === "loading" ? <Skeleton height={320} /> : null}
      </div>
    );
  }
  const problems = productionModeChecks(p.config);
  const otherTeams = (teams.value ?? []).filter((t) => t.id !== p.ownerTeamId);
  const newTeam = otherTeams.find((t) => t.id === chosenTeam)?.id ?? otherTeams[0]?.id;
  return (
    <div className="vs-stack">
      <h1 style={{ margin: 0, fontSize: "1.5rem" }}>Project settings</h1>
      <Card>
        <form className="vs-stack" noValidate onSubmit={(e: FormEvent) => { e.preventDefault(); setSaved(false); if (f.name.trim()) void save(); }}>
          <h2 style={{ margin: 0, fontSize: "1.15rem" }}>General</h2>
          <dl className="vs-kv">
            <dt>Project ID</dt>
            <dd><code className="vs-code">{p.id}</code></dd>
          </dl>
          <TextField label="Project name" value={f.name} onChange={(v) => setForm({ ...f, name: v })} error={!f.name.trim() ? "Please enter a project name." : null} maxLength={256} />
          <TextField label="Description" value={f.description} onChange={(v) => setForm({ ...f, description: v })} />
          <ErrorAlert error={saveState.error} />
          {saved ? <Alert kind="success">Settings saved.</Alert> : null}
          <div><Button type="submit" variant="primary" loading={saveState.pending}>Save</Button></div>
        </form>
      </Card>
      <HostedPagesCard project={p} config={rendered.value} reloadConfig={rendered.reload} origin={frontendsOrigin ?? location.origin} domainsHref={areaHref("auth", "#domains")} />
      <Card className="vs-section">
        <h2>Production mode</h2>
        <Switch
          label="Production mode"
          description="Turns off development conveniences; trusted domains must pass the checks below."
          checked={p.isProductionMode}
          disabled={productionState.pending}
          onChange={(v) => (v && problems.length > 0 ? setConfirmProduction(true) : void setProduction(v))}
        />
        <ErrorAlert error={productionState.error} />
        <Dialog open={confirmProduction} onClose={() => setConfirmProduction(false)} title="Switch on production mode with failing checks?">
          <div className="vs-stack" data-testid="production-confirm">
            <p style={{ margin: 0 }}>These checks fail. Sign-in from these domains may break once production mode is on:</p>
            <ul style={{ margin: 0, paddingLeft: 20 }}>
              {problems.map((c) => (
                <li key={c.message}>{c.message}</li>
              ))}
            </ul>
            <div className="vs-row" style={{ justifyContent: "flex-end" }}>
              <Button onClick={() => setConfirmProduction(false)}>Cancel</Button>
              <Button variant="danger" onClick={() => { setConfirmProduction(false); void setProduction(true); }}>Switch on anyway</Button>
            </div>
          </div>
        </Dialog>
        {problems.length ? (
          <Alert kind="warning" title="Domain settings to fix for production">
            <ul style={{ margin: "6px 0 0", paddingLeft: 20 }} data-testid="production-checks">
              {problems.map((c) => (
                <li key={c.message}>
                  {c.message} — <Link href={areaHref("auth", `#${c.fix}`)}>Fix</Link>
                </li>
              ))}
            </ul>
          </Alert>
        ) : (
          <Alert kind="success">The domain settings pass the production checks.</Alert>
        )}
      </Card>
      <Card className="vs-section">
        <h2>Analytics</h2>
        {rendered.value ? (
          <Switch
            label="Analytics"
            description="Page views and clicks that the current SDK sends from browsers (charted on the overview). Off: the SDK's batches are refused with ANALYTICS_NOT_ENABLED."
            checked={analyticsOn}
            disabled={analyticsState.pending}
            onChange={(v) => void setAnalytics(v)}
          />
        ) : (
          <Skeleton height={48} />
        )}
        <ErrorAlert error={rendered.error ?? analyticsState.error} />
      </Card>
      <Card className="vs-section">
        <h2>Transfer</h2>
        <p className="vs-muted" style={{ margin: 0 }}>Move the project to another team you belong to (its members become the owners).</p>
        {!owner ? (
          <Alert kind="info">Transfers are made by a signed-in owner in the dashboard (this area runs with project keys).</Alert>
        ) : teams.status === "loading" ? (
          <Skeleton height={66} />
        ) : otherTeams.length === 0 ? (
          <Alert kind="info">You are not a member of another team. Create one in your account settings first.</Alert>
        ) : (
          <form className="vs-row" style={{ alignItems: "flex-end" }} noValidate onSubmit={(e: FormEvent) => { e.preventDefault(); void transfer(); }}>
            <div style={{ flex: "1 1 260px" }}>
              <Select label="New owner team" value={newTeam} onChange={setNewTeam} options={otherTeams.map((t) => ({ value: t.id, label: t.displayName }))} />
            </div>
            <Button type="submit" loading={transferState.pending}>Transfer</Button>
          </form>
        )}
        <ErrorAlert error={teams.error ?? transferState.error} />
        {transferred ? <Alert kind="success">The project was transferred.</Alert> : null}
      </Card>
      <Card className="vs-section">
        <h2>Delete project</h2>
        <div><Button variant="danger" onClick={() => setConfirm(true)}>Delete this project</Button></div>
      </Card>
      <Dialog open={confirm} onClose={() => setConfirm(false)} title="Delete this project?">
        <p style={{ margin: 0 }}>All users, teams and settings of {p.displayName} are deleted. Type the project ID to confirm.</p>
        <TextField label="Project ID" value={typed} onChange={setTyped} />
        <ErrorAlert error={removeState.error} />
        <div className="vs-row">
          <Button variant="danger" disabled={typed !== p.id} loading={removeState.pending} onClick={() => void remove()}>Delete project</Button>
          <Button onClick={() => setConfirm(false)}>Cancel</Button>
        </div>
      </Dialog>
    </div>
  );
}
