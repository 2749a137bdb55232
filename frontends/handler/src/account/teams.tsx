import { useState, type FormEvent } from "react";
import type { CurrentUser, Project, Team } from "@vestibule/js";
import { useTeams } from "@vestibule/react";
import { Alert, Button, ErrorAlert, Table, TextField, useAction, useLoad } from "@vestibule/ui";
import { emailError } from "../validation.ts";

function TeamPanel({ team, user }: { team: Team; user: CurrentUser }) {
  const members = useLoad(() => team.listUsers(), [team]);
  const canInvite = useLoad(() => user.hasPermission(team, "$invite_members"), [team, user]);
  const [email, setEmail] = useState("");
  const [touched, setTouched] = useState(false);
  const [invited, setInvited] = useState<string | null>(null);
  const [invite, inviteState] = useAction(async () => {
    await team.inviteUser({ email: email.trim() });
    setInvited(email.trim());
    setEmail("");
    setTouched(false);
  });
  const [leave, leaveState] = useAction(() => user.leaveTeam(team));
  return (
    <section className="vs-card vs-stack" aria-label={`Team ${team.displayName}`} style={{ padding: 16 }}>
      <div className="vs-spread">
        <h3>{team.displayName}</h3>
        <Button small variant="danger" onClick={() => void leave()} loading={leaveState.pending}>
          Leave team
        </Button>
      </div>
      <ErrorAlert error={leaveState.error} />
      <ErrorAlert error={members.error} />
      <Table
        caption={`Members of ${team.displayName}`}
        rows={members.value ?? []}
        loadingRows={members.status === "loading" ? 1 : 0}
        rowKey={(m) => m.id}
        columns={[
          { key: "name", header: "Member", render: (m) => m.teamProfile.displayName ?? (m.id === user.id ? "You" : m.id) },
        ]}
      />
      {canInvite.value ? (
        <form
          className="vs-row"
          style={{ alignItems: "flex-end" }}
          noValidate
          onSubmit={(e: FormEvent) => {
            e.preventDefault();
            setTouched(true);
            setInvited(null);
            if (!emailError(email)) void invite();
          }}
        >
          <div style={{ flex: "1 1 240px" }}>
            <TextField label="Invite by e-mail" type="email" value={email} onChange={setEmail} error={touched ? emailError(email) : null} />
          </div>
          <Button type="submit" loading={inviteState.pending}>
            Send invitation
          </Button>
        </form>
      ) : null}
      {invited ? <Alert kind="success">Invitation sent to {invited}.</Alert> : null}
      <ErrorAlert error={inviteState.error} />
    </section>
  );
}

export function TeamsSection({ user, project }: { user: CurrentUser; project: Project }) {
  // createTeam and leaveTeam refresh the cached list; useTeams re-renders.
  const teams = useTeams();
  const [name, setName] = useState("");
  const [touched, setTouched] = useState(false);
  const [create, createState] = useAction(async () => {
    await user.createTeam({ displayName: name.trim() });
    setName("");
    setTouched(false);
  });
  const nameError = touched && !name.trim() ? "Please enter a team name." : null;
  return (
    <div className="vs-stack">
      <h2>Teams</h2>
      {teams.length === 0 ? <p className="vs-muted" style={{ margin: 0 }}>You are not a member of any team.</p> : null}
      {teams.map((t) => (
        <TeamPanel key={t.id} team={t} user={user} />
      ))}
      {project.config.clientTeamCreationEnabled ? (
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
            <TextField label="New team name" value={name} onChange={setName} error={nameError} maxLength={256} />
          </div>
          <Button type="submit" variant="primary" loading={createState.pending}>
            Create team
          </Button>
        </form>
      ) : null}
      <ErrorAlert error={createState.error} />
    </div>
  );
}
