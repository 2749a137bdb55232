import { useState, type FormEvent } from "react";
import type { CurrentUser } from "@vestibule/js";
import { Button, Card, ErrorAlert, Link, Select, Table, TextField, navigate, useAction, useLoad, useTitle, type RuntimeConfig } from "@vestibule/ui";
import { createProject, listOwnedProjects } from "./internal-api.ts";

/** The projects the signed-in owner manages, and a form to create one owned by one of their teams. */
export function ProjectsPage({ config, user }: { config: RuntimeConfig; user: CurrentUser }) {
  useTitle("Projects · Vestibule");
  const projects = useLoad(() => listOwnedProjects(config, user), [config, user]);
  const teams = useLoad(() => user.listTeams(), [user]);
  const [name, setName] = useState("");
  const [teamId, setTeamId] = useState("");
  const [touched, setTouched] = useState(false);
  const [create, state] = useAction(async () => {
    let owner = teamId || teams.value?.[0]?.id;
    if (!owner) owner = (await user.createTeam({ displayName: `${user.displayName ?? user.primaryEmail ?? "My"} team` })).id;
    const p = await createProject(config, user, { displayName: name.trim(), ownerTeamId: owner });
    navigate(`/projects/${p.id}`);
  });
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
      <Card>
        <form
          className="vs-stack"
          noValidate
          onSubmit={(e: FormEvent) => {
            e.preventDefault();
            setTouched(true);
            if (name.trim()) void create();
          }}
        >
          <h2 style={{ margin: 0, fontSize: "1.15rem" }}>Create a project</h2>
          <div className="vs-grid-2">
            <TextField label="Project name" value={name} onChange={setName} error={touched && !name.trim() ? "Please enter a project name." : null} maxLength={256} />
            <Select
              label="Owner team"
              value={teamId}
              onChange={setTeamId}
              options={(teams.value ?? []).map((t) => ({ value: t.id, label: t.displayName }))}
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
      </Card>
    </div>
  );
}
