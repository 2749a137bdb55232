/**
 * Teams and permissions of a project: the teams (each opens its detail, team-detail.tsx) and the permission
 * definitions (team and project scope) with the spec's id rules.
 */
import { useState, type FormEvent } from "react";
import { TeamDetail } from "./team-detail.tsx";
import type { PermissionDefinition, StackAdminApp } from "@vestibule/js";
import { Button, Card, ConfirmButton, ErrorAlert, Link, Table, TextField, matchPath, useAction, useLoad, useLocation, useTitle, type AreaProps } from "@vestibule/ui";

/** Permission ids (spec §5): lowercase letters, digits, ":" and "_"; "$" only for system permissions. */
export function permissionIdError(id: string): string | null {
  if (!id) return "Please enter an ID.";
  if (!/^\$?[a-z0-9_:]+$/.test(id)) return 'Only lowercase letters, numbers, ":", "_" and optional "$" at the beginning are allowed';
  if (id.startsWith("$")) return "Invalid system permission";
  return null;
}

function Definitions({ adminApp, scope }: { adminApp: StackAdminApp; scope: "team" | "project" }) {
  const list = useLoad(() => (scope === "team" ? adminApp.listTeamPermissionDefinitions() : adminApp.listProjectPermissionDefinitions()), [adminApp, scope]);
  const [id, setId] = useState("");
  const [description, setDescription] = useState("");
  const [contained, setContained] = useState<string[]>([]);
  const [touched, setTouched] = useState(false);
  const [create, state] = useAction(async () => {
    const data = { id, description: description.trim() || undefined, containedPermissionIds: contained };
    if (scope === "team") await adminApp.createTeamPermissionDefinition(data);
    else await adminApp.createProjectPermissionDefinition(data);
    setId("");
    setDescription("");
    setContained([]);
    setTouched(false);
    await list.reload();
  });
  const [remove, removeState] = useAction(async (pid: string) => {
    if (scope === "team") await adminApp.deleteTeamPermissionDefinition(pid);
    else await adminApp.deleteProjectPermissionDefinition(pid);
    await list.reload();
  });
  const idError = touched ? permissionIdError(id) : null;
  return (
    <Card className="vs-section">
      <h2>{scope === "team" ? "Team permissions" : "Project permissions"}</h2>
      <ErrorAlert error={list.error ?? removeState.error} />
      <Table<PermissionDefinition>
        caption={`${scope} permission definitions`}
        rows={list.value ?? []}
        loadingRows={list.status === "loading" ? 3 : 0}
        rowKey={(d) => d.id}
        columns={[
          { key: "id", header: "ID", render: (d) => <code className="vs-code">{d.id}</code> },
          { key: "d", header: "Description", render: (d) => d.description ?? "—", hideOnPhone: true },
          { key: "c", header: "Contains", render: (d) => d.containedPermissionIds.join(", ") || "—" },
          {
            key: "x",
            header: <span className="vs-sr-only">Actions</span>,
            render: (d) =>
              d.id.startsWith("$") ? null : (
                <ConfirmButton
                  title={`Delete the permission ${d.id}?`}
                  message={`Every ${scope === "team" ? "team member" : "user"} who holds ${d.id} loses it, and permissions that contain it no longer grant it. This cannot be undone.`}
                  confirmLabel="Delete permission"
                  disabled={removeState.pending}
                  onConfirm={() => remove(d.id)}
                >
                  Delete<span className="vs-sr-only"> {d.id}</span>
                </ConfirmButton>
              ),
          },
        ]}
      />
      <form
        className="vs-stack"
        noValidate
        aria-label={`Create a ${scope} permission`}
        onSubmit={(e: FormEvent) => {
          e.preventDefault();
          setTouched(true);
          if (!permissionIdError(id)) void create();
        }}
      >
        <h3>Create a {scope} permission</h3>
        <div className="vs-grid-2">
          <TextField label="Permission ID" value={id} onChange={setId} error={idError} placeholder="read:reports" />
          <TextField label="Description" value={description} onChange={setDescription} />
        </div>
        <fieldset style={{ border: 0, padding: 0, margin: 0 }}>
          <legend className="vs-label">Contains</legend>
          <div className="vs-row">
            {(list.value ?? []).map((d) => (
              <label key={d.id} className="vs-row" style={{ gap: 4 }}>
                <input type="checkbox" checked={contained.includes(d.id)} onChange={(e) => setContained(e.target.checked ? [...contained, d.id] : contained.filter((x) => x !== d.id))} />
                <code>{d.id}</code>
              </label>
            ))}
          </div>
        </fieldset>
        <ErrorAlert error={state.error} />
        <div>
          <Button type="submit" variant="primary" loading={state.pending}>
            Create permission
          </Button>
        </div>
      </form>
    </Card>
  );
}

function TeamList({ adminApp, basePath }: AreaProps) {
  const teams = useLoad(() => adminApp.listTeams(), [adminApp]);
  const [name, setName] = useState("");
  const [touched, setTouched] = useState(false);
  const [create, state] = useAction(async () => {
    await adminApp.createTeam({ displayName: name.trim() });
    setName("");
    setTouched(false);
    await teams.reload();
  });
  return (
    <Card className="vs-section">
      <h2>Teams</h2>
      <ErrorAlert error={teams.error} />
      <Table
        caption="Teams"
        rows={teams.value ?? []}
        loadingRows={teams.status === "loading" ? 3 : 0}
        rowKey={(t) => t.id}
        empty="No teams yet."
        columns={[
          { key: "n", header: "Team", render: (t) => <Link href={`${basePath}/${t.id}`}>{t.displayName}</Link> },
          { key: "c", header: "Created", render: (t) => t.createdAt.toLocaleDateString(), hideOnPhone: true },
        ]}
      />
      <form
        className="vs-row"
        style={{ alignItems: "flex-end" }}
        noValidate
        onSubmit={(e: FormEvent) => {
          e.preventDefault();
          setTouched(true);
          if (name.trim()) void create();
        }}
      >
        <div style={{ flex: "1 1 240px" }}>
          <TextField label="New team name" value={name} onChange={setName} maxLength={256} error={touched && !name.trim() ? "Enter a name for the team." : null} />
        </div>
        <Button type="submit" loading={state.pending}>
          Create team
        </Button>
      </form>
      <ErrorAlert error={state.error} />
    </Card>
  );
}

export default function TeamsArea(props: AreaProps) {
  useTitle("Teams & permissions · Vestibule");
  const { pathname } = useLocation();
  const detail = matchPath(`${props.basePath}/:teamId`, pathname);
  if (detail) return <TeamDetail adminApp={props.adminApp} teamId={detail.teamId!} basePath={props.basePath} areaHref={props.areaHref} />;
  return (
    <div className="vs-stack">
      <h1 style={{ margin: 0, fontSize: "1.5rem" }}>Teams &amp; permissions</h1>
      <TeamList {...props} />
      <Definitions adminApp={props.adminApp} scope="team" />
      <Definitions adminApp={props.adminApp} scope="project" />
    </div>
  );
}
