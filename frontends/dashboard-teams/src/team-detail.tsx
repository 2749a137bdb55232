/**
 * One team of a project: its name (renamable), creation date and members, each member's permissions in it (granted and
 * revoked here, with what they include), removing a member, invitations, and deleting the team. Removing a member and
 * deleting the team ask first, naming who or what goes.
 */
import { useState, type FormEvent } from "react";
import { invitationCallbackUrl } from "./invitation-url.ts";
import type { PermissionDefinition, ServerTeam, ServerTeamUser, StackAdminApp } from "@vestibule/js";
import { Alert, Button, Card, ConfirmButton, ErrorAlert, Link, Select, Skeleton, Table, TextField, navigate, useAction, useLoad, useTitle, type AreaProps } from "@vestibule/ui";

/** How the dashboard names a member: their name in the team, else their e-mail, else their id. */
function memberName(member: ServerTeamUser): string {
  return member.teamProfile.displayName ?? member.displayName ?? member.primaryEmail ?? member.id;
}

/**
 * One member's direct permissions in the team, each revocable, a permission to grant, and the permissions they hold
 * through the direct ones (a team_admin also holds $update_team, ...), which cannot be revoked one by one.
 */
function MemberPermissions({ member, team, definitions }: { member: ServerTeamUser; team: ServerTeam; definitions: readonly PermissionDefinition[] }) {
  const granted = useLoad(async () => {
    const [direct, all] = await Promise.all([member.listPermissions(team, { recursive: false }), member.listPermissions(team, { recursive: true })]);
    return { direct, included: all.filter((p) => !direct.some((d) => d.id === p.id)) };
  }, [member, team.id]);
  const [choice, setChoice] = useState("");
  const [change, state] = useAction(async (permissionId: string, on: boolean) => {
    if (on) await member.grantPermission(team, permissionId);
    else await member.revokePermission(team, permissionId);
    setChoice("");
    await granted.reload();
  });
  const who = member.primaryEmail ?? member.id;
  const direct = granted.value?.direct;
  const grantable = definitions.filter((d) => !direct?.some((g) => g.id === d.id));
  return (
    <div className="vs-stack" style={{ gap: 6 }}>
      <div className="vs-muted" style={{ fontSize: "0.8rem", textTransform: "uppercase", letterSpacing: "0.03em" }}>
        Permissions in this team
      </div>
      <div className="vs-row" aria-label={`Permissions of ${who}`} role="list">
        {granted.status === "loading" ? <Skeleton width={120} height={24} /> : null}
        {direct?.length === 0 ? <span className="vs-muted">None</span> : null}
        {direct?.map((g) => (
          <span key={g.id} role="listitem" className="vs-badge" style={{ display: "inline-flex", alignItems: "center", gap: 4 }}>
            <code>{g.id}</code>
            <button type="button" className="vs-btn vs-btn-ghost vs-btn-small" style={{ minHeight: 24, padding: "0 6px" }} disabled={state.pending} onClick={() => void change(g.id, false)} aria-label={`Revoke ${g.id} from ${who}`}>
              ×
            </button>
          </span>
        ))}
      </div>
      {granted.value && granted.value.included.length > 0 ? (
        <div className="vs-muted" style={{ fontSize: "0.85rem", overflowWrap: "anywhere" }} data-testid={`included-${who}`}>
          Includes {granted.value.included.map((p) => p.id).join(", ")}
        </div>
      ) : null}
      <div className="vs-row" style={{ flexWrap: "nowrap", alignItems: "flex-end", maxWidth: 420 }}>
        <Select label={`Grant ${who} a permission`} hideLabel value={choice} onChange={setChoice} options={[{ value: "", label: "Grant a permission…" }, ...grantable.map((d) => ({ value: d.id, label: d.id }))]} />
        <Button small disabled={!choice || state.pending} onClick={() => void change(choice, true)}>
          Grant
        </Button>
      </div>
      <ErrorAlert error={granted.error ?? state.error} />
    </div>
  );
}

/** The team's name, saved on submit; an empty name is refused here with a sentence (as when creating a team). */
function RenameForm({ team, onRenamed }: { team: ServerTeam; onRenamed: () => Promise<void> }) {
  const [name, setName] = useState(team.displayName);
  const [touched, setTouched] = useState(false);
  const [saved, setSaved] = useState(false);
  const [rename, state] = useAction(async () => {
    await team.update({ displayName: name.trim() });
    setSaved(true);
    await onRenamed();
  });
  return (
    <form
      className="vs-row"
      style={{ alignItems: "flex-end" }}
      noValidate
      aria-label="Rename the team"
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        setTouched(true);
        setSaved(false);
        if (name.trim()) void rename();
      }}
    >
      <div style={{ flex: "1 1 240px" }}>
        <TextField
          label="Team name"
          value={name}
          onChange={(v) => {
            setName(v);
            setSaved(false);
          }}
          maxLength={256}
          error={touched && !name.trim() ? "Enter a name for the team." : null}
        />
      </div>
      <Button type="submit" loading={state.pending} disabled={name.trim() === team.displayName}>
        Rename team
      </Button>
      <div style={{ flex: "1 1 100%" }}>
        <ErrorAlert error={state.error} />
        {saved && !state.error ? <Alert kind="success">Team renamed.</Alert> : null}
      </div>
    </form>
  );
}

/** What deleting a team does, for its confirmation: who loses what, in words that fit the member count. */
export function deleteTeamMessage(name: string, memberCount: number | undefined): string {
  const many = memberCount === undefined ? "Its members" : `Its ${memberCount} members`;
  const who =
    memberCount === 0
      ? ""
      : memberCount === 1
        ? " Its one member loses their membership and permissions in it; their account stays."
        : ` ${many} lose their membership and permissions in it; their accounts stay.`;
  return `${name} and its pending invitations are deleted.${who} This cannot be undone.`;
}

export function TeamDetail({ adminApp, teamId, basePath, areaHref }: { adminApp: StackAdminApp; teamId: string; basePath: string; areaHref: AreaProps["areaHref"] }) {
  const team = useLoad(() => adminApp.getTeam(teamId), [adminApp, teamId]);
  const project = useLoad(() => adminApp.getProject(), [adminApp]);
  const callbackUrl = project.value ? invitationCallbackUrl(project.value.config.domains) : null;
  const t: ServerTeam | null | undefined = team.value;
  // Keyed by the id: a rename gives a new team object, which must not reload the members and invitations.
  const members = useLoad(async () => (t ? t.listUsers() : []), [t?.id]);
  const invitations = useLoad(async () => (t ? t.listInvitations() : []), [t?.id]);
  const definitions = useLoad(() => adminApp.listTeamPermissionDefinitions(), [adminApp]);
  const [email, setEmail] = useState("");
  const [invite, inviteState] = useAction(async () => {
    await t!.inviteUser({ email: email.trim(), callbackUrl: callbackUrl! });
    setEmail("");
    await invitations.reload();
  });
  const [removeMember, removeMemberState] = useAction(async (userId: string) => {
    try {
      await t!.removeUser(userId);
    } finally {
      // Also when it failed: a member removed elsewhere meanwhile leaves the list along with the sentence saying so.
      await members.reload();
    }
  });
  const [deleteTeam, deleteState] = useAction(async () => {
    await t!.delete();
    navigate(basePath);
  });
  useTitle(`${t?.displayName ?? "Team"} · Vestibule`);
  const memberCount = members.value?.length;
  return (
    <div className="vs-stack">
      <Link href={basePath}>← All teams</Link>
      <ErrorAlert error={team.error} />
      {team.status === "loading" ? (
        <Card>
          <Skeleton height={64} />
        </Card>
      ) : null}
      {t ? (
        <>
          <Card className="vs-stack">
            <h1 style={{ margin: 0, fontSize: "1.4rem", overflowWrap: "anywhere" }}>{t.displayName}</h1>
            <dl className="vs-kv">
              <dt>Team ID</dt>
              <dd>
                <code className="vs-code">{t.id}</code>
              </dd>
              <dt>Created</dt>
              <dd data-testid="team-created">{t.createdAt.toLocaleString()}</dd>
              <dt>Members</dt>
              <dd>{memberCount === undefined ? <Skeleton width={40} height={16} /> : memberCount}</dd>
            </dl>
            <RenameForm key={t.id} team={t} onRenamed={team.reload} />
          </Card>
          <Card className="vs-section">
            <h2>Members</h2>
            <ErrorAlert error={members.error ?? definitions.error ?? removeMemberState.error} />
            {/* A list rather than a table: each member's permissions need the full width on a phone. */}
            <ul aria-label="Members" style={{ listStyle: "none", margin: 0, padding: 0, border: "1px solid var(--vs-border)", borderRadius: 10 }}>
              {members.status === "loading" ? (
                <li style={{ padding: 12 }}>
                  <Skeleton height={48} />
                </li>
              ) : null}
              {members.value?.length === 0 ? (
                <li className="vs-muted" style={{ padding: 12 }}>
                  No members. Invite someone below.
                </li>
              ) : null}
              {members.value?.map((m, i) => (
                <li key={m.id} aria-label={memberName(m)} className="vs-stack" style={{ gap: 8, padding: 12, borderTop: i > 0 ? "1px solid var(--vs-border)" : undefined }}>
                  <div className="vs-row" style={{ justifyContent: "space-between", flexWrap: "nowrap", alignItems: "flex-start" }}>
                    <div style={{ minWidth: 0, overflowWrap: "anywhere" }}>
                      <strong>{memberName(m)}</strong>
                      {m.primaryEmail && m.primaryEmail !== memberName(m) ? <div className="vs-muted">{m.primaryEmail}</div> : null}
                    </div>
                    <ConfirmButton
                      title={`Remove ${memberName(m)} from ${t.displayName}?`}
                      message={`${memberName(m)} leaves the team and loses every permission in it. Their account stays; you can add them again later.`}
                      confirmLabel="Remove member"
                      disabled={removeMemberState.pending}
                      onConfirm={() => removeMember(m.id)}
                    >
                      Remove<span className="vs-sr-only"> {memberName(m)}</span>
                    </ConfirmButton>
                  </div>
                  <MemberPermissions member={m} team={t} definitions={definitions.value ?? []} />
                </li>
              ))}
            </ul>
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
          <Card className="vs-section">
            <h2>Delete team</h2>
            <p className="vs-muted" style={{ margin: 0 }}>
              Members keep their accounts but lose their membership and permissions in this team.
            </p>
            <ErrorAlert error={deleteState.error} />
            <div>
              <ConfirmButton
                small={false}
                title={`Delete the team "${t.displayName}"?`}
                message={deleteTeamMessage(t.displayName, memberCount)}
                confirmLabel="Delete team"
                disabled={deleteState.pending}
                onConfirm={deleteTeam}
              >
                Delete team
              </ConfirmButton>
            </div>
          </Card>
        </>
      ) : team.status === "ok" ? (
        <Alert kind="error">This team does not exist (it may have been deleted).</Alert>
      ) : null}
    </div>
  );
}
