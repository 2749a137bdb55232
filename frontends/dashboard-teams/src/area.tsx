/**
 * Teams and permissions of a project: teams with their members, invitations and each member's permissions, and the
 * permission definitions (team and project scope) with the spec's id rules.
 */
import { useState, type FormEvent } from "react";
import { invitationCallbackUrl } from "./invitation-url.ts";
import type { PermissionDefinition, ServerTeam, ServerTeamUser, StackAdminApp } from "@vestibule/js";
import { Alert, Button, Card, ConfirmButton, ErrorAlert, Link, Select, Skeleton, Table, TextField, matchPath, useAction, useLoad, useLocation, useTitle, type AreaProps } from "@vestibule/ui";

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

/** One member's direct permissions in the team, each removable, and a permission to grant. */
function MemberPermissions({ member, team, definitions }: { member: ServerTeamUser; team: ServerTeam; definitions: readonly PermissionDefinition[] }) {
  const granted = useLoad(() => member.listPermissions(team, { recursive: false }), [member, team]);
  const [choice, setChoice] = useState("");
  const [change, state] = useAction(async (permissionId: string, on: boolean) => {
    if (on) await member.grantPermission(team, permissionId);
    else await member.revokePermission(team, permissionId);
    setChoice("");
    await granted.reload();
  });
  const who = member.primaryEmail ?? member.id;
  const grantable = definitions.filter((d) => !granted.value?.some((g) => g.id === d.id));
  return (
    <div className="vs-stack" style={{ gap: 6 }}>
      <div className="vs-row" aria-label={`Permissions of ${who}`} role="list">
        {granted.status === "loading" ? <Skeleton width={120} height={24} /> : null}
        {granted.value?.length === 0 ? <span className="vs-muted">None</span> : null}
        {granted.value?.map((g) => (
          <span key={g.id} role="listitem" className="vs-badge" style={{ display: "inline-flex", alignItems: "center", gap: 4 }}>
            <code>{g.id}</code>
            <button type="button" className="vs-btn vs-btn-ghost vs-btn-small" style={{ minHeight: 24, padding: "0 6px" }} disabled={state.pending} onClick={() => void change(g.id, false)} aria-label={`Revoke ${g.id} from ${who}`}>
              ×
            </button>
          </span>
        ))}
      </div>
      <div className="vs-row" style={{ flexWrap: "nowrap", alignItems: "flex-end" }}>
        <Select label={`Grant ${who} a permission`} hideLabel value={choice} onChange={setChoice} options={[{ value: "", label: "Grant a permission…" }, ...grantable.map((d) => ({ value: d.id, label: d.id }))]} />
        <Button small disabled={!choice || state.pending} onClick={() => void change(choice, true)}>
          Grant
        </Button>
      </div>
      <ErrorAlert error={granted.error ?? state.error} />
    </div>
  );
}

function TeamDetail({ adminApp, teamId, basePath, areaHref }: { adminApp: StackAdminApp; teamId: string; basePath: string; areaHref: AreaProps["areaHref"] }) {
  const team = useLoad(() => adminApp.getTeam(teamId), [adminApp, teamId]);
  const project = useLoad(() => adminApp.getProject(), [adminApp]);
  const callbackUrl = project.value ? invitationCallbackUrl(project.value.config.domains) : null;
  const members = useLoad(async () => (team.value ? team.value.listUsers() : []), [team.value]);
  const invitations = useLoad(async () => (team.value ? team.value.listInvitations() : []), [team.value]);
  const definitions = useLoad(() => adminApp.listTeamPermissionDefinitions(), [adminApp]);
  const [email, setEmail] = useState("");
  const [invite, inviteState] = useAction(async () => {
    await team.value!.inviteUser({ email: email.trim(), callbackUrl: callbackUrl! });
    setEmail("");
    await invitations.reload();
  });
  const t: ServerTeam | null | undefined = team.value;
  return (
    <div className="vs-stack">
      <Link href={basePath}>← All teams</Link>
      <ErrorAlert error={team.error} />
      {t ? (
        <>
          <h1 style={{ margin: 0, fontSize: "1.4rem" }}>{t.displayName}</h1>
          <Card className="vs-section">
            <h2>Members</h2>
            <ErrorAlert error={members.error ?? definitions.error} />
            <Table
              caption="Members"
              rows={members.value ?? []}
              loadingRows={members.status === "loading" ? 2 : 0}
              rowKey={(m) => m.id}
              columns={[
                { key: "u", header: "Member", render: (m) => m.teamProfile.displayName ?? m.primaryEmail ?? m.id },
                { key: "e", header: "E-mail", render: (m) => m.primaryEmail ?? "—", hideOnPhone: true },
                { key: "p", header: "Permissions in this team", render: (m) => <MemberPermissions member={m} team={t} definitions={definitions.value ?? []} /> },
              ]}
            />
          </Card>
          <Card className="vs-section">
            <h2>Invitations</h2>
            <ErrorAlert error={invitations.error} />
            <Table
              caption="Pending invitations"
              rows={invitations.value ?? []}
              loadingRows={invitations.status === "loading" ? 1 : 0}
              rowKey={(i) => i.id}
              empty="No pending invitations."
              columns={[
                { key: "e", header: "Recipient", render: (i) => i.recipientEmail ?? "—" },
                { key: "x", header: "Expires", render: (i) => i.expiresAt.toLocaleDateString() },
              ]}
            />
            {project.value && !callbackUrl ? (
              <Alert kind="info">
                Invitation links lead to your app&apos;s handler pages: <Link href={areaHref("auth", "#domains")}>add a trusted domain</Link> to invite members.
              </Alert>
            ) : null}
            <form
              className="vs-row"
              style={{ alignItems: "flex-end" }}
              noValidate
              onSubmit={(e: FormEvent) => {
                e.preventDefault();
                if (email.trim() && callbackUrl) void invite();
              }}
            >
              <div style={{ flex: "1 1 240px" }}>
                <TextField label="Invite by e-mail" type="email" value={email} onChange={setEmail} />
              </div>
              <Button type="submit" loading={inviteState.pending} disabled={!callbackUrl}>
                Send invitation
              </Button>
            </form>
            <ErrorAlert error={inviteState.error} />
          </Card>
        </>
      ) : team.status === "ok" ? (
        <Alert kind="error">This team does not exist.</Alert>
      ) : null}
    </div>
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
