import { useState, type FormEvent } from "react";
import type { AdminOwnedProject, CurrentInternalUser } from "@vestibule/js";
import { useTeams } from "@vestibule/react";
import { AsyncSection, Button, Card, ErrorAlert, Link, Select, Skeleton, Table, TextField, navigate, useAction, useTitle, type useLoad } from "@vestibule/ui";

type OwnedProjects = ReturnType<typeof useLoad<AdminOwnedProject[]>>;

/** Creates a project owned by one of the user's teams (`user.createProject()`); the teams come from useTeams(). */
function CreateProject({ user, projects }: { user: CurrentInternalUser; projects: OwnedProjects }) {
  const teams = useTeams();
  const [name, setName] = useState("");
  const [teamId, setTeamId] = useState("");
  const [touched, setTouched] = useState(false);
  const [create, state] = useAction(async () => {
    // An owner without a team (personal teams turned off) gets one for the project.
    let owner = teamId || teams[0]?.id;
    if (!owner) owner = (await user.createTeam({ displayName: `${user.displayName ?? user.primaryEmail ?? "My"} team` })).id;
    const p = await user.createProject({ displayName: name.trim(), teamId: owner });
    await projects.reload();
    navigate(`/projects/${p.id}`);
  });
  return (
    <form
      className="vs-stack"
      noValidate
      aria-label="Create a project"
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        setTouched(true);
        if (name.trim()) void create();
      }}
    >
      <div className="vs-grid-2">
        <TextField label="Project name" value={name} onChange={setName} error={touched && !name.trim() ? "Please enter a project name." : null} maxLength={256} />
        <Select
          label="Owner team"
          value={teamId}
          onChange={setTeamId}
          options={teams.length ? teams.map((t) => ({ value: t.id, label: t.displayName })) : [{ value: "", label: "A new team of yours" }]}
          hint="Members of this team can manage the project."
        />
      </div>
      <ErrorAlert error={state.error} />
      <div>
        <Button type="submit" variant="primary" loading={state.pending}>
          Create project
        </Button>
      </div>
    </form>
  );
}

/**
 * The projects the signed-in owner manages (`user.listOwnedProjects()`, loaded by the shell), and a form to create one
 * owned by one of their teams.
 */
export function ProjectsPage({ user, owned: projects }: { user: CurrentInternalUser; owned: OwnedProjects }) {
  useTitle("Projects · Vestibule");
  return (
    <div className="vs-stack">
      <h1 style={{ margin: 0, fontSize: "1.5rem" }}>Projects</h1>
      <ErrorAlert error={projects.error} />
      <Table
        caption="Your projects"
        rows={projects.value ?? []}
        loadingRows={projects.status === "loading" ? 3 : 0}
        rowKey={(p) => p.id}
        onRowClick={(p) => navigate(`/projects/${p.id}`)}
        empty="You have no projects yet. Create one below."
        columns={[
          { key: "n", header: "Project", render: (p) => <Link href={`/projects/${p.id}`}>{p.displayName}</Link> },
          { key: "id", header: "Project ID", render: (p) => <code className="vs-code">{p.id}</code>, hideOnPhone: true },
          { key: "m", header: "Mode", render: (p) => (p.isProductionMode ? <span className="vs-badge vs-badge-ok">Production</span> : <span className="vs-badge">Development</span>) },
          { key: "c", header: "Created", render: (p) => p.createdAt.toLocaleDateString(), hideOnPhone: true },
        ]}
      />
      <Card className="vs-stack">
        <h2 style={{ margin: 0, fontSize: "1.15rem" }}>Create a project</h2>
        <AsyncSection fallback={<Skeleton height={130} />}>
          <CreateProject user={user} projects={projects} />
        </AsyncSection>
      </Card>
    </div>
  );
}
