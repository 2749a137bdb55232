/**
 * A user's detail page: what the dashboard knows of them (verification, sign-in methods, passkeys, two-factor,
 * restriction), their actions (user-actions.tsx), profile, metadata and restriction editors, linked OAuth accounts,
 * sessions, contact channels and teams (user-sections.tsx). Removing anything asks first.
 */
import { useState, type FormEvent } from "react";
import type { ServerUser } from "@vestibule/js";
import { RestrictionEditor, restrictionText } from "./restriction.tsx";
import { UserActions } from "./user-actions.tsx";
import { UserContactChannels, UserSessions, UserTeams } from "./user-sections.tsx";
import { Alert, Avatar, Button, Card, ConfirmButton, ErrorAlert, Link, Skeleton, Table, TextArea, TextField, navigate, useAction, useLoad, useTitle, type AreaProps } from "@vestibule/ui";

/** `is not valid JSON` (spec §5) when the text does not parse; an empty text means null. */
export function parseJson(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  if (!text.trim()) return { ok: true, value: null };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false, error: "is not valid JSON" };
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const valueOf = (p: ReturnType<typeof parseJson>): any => (p.ok ? p.value : null);

const pretty = (v: unknown) => (v === null || v === undefined ? "" : JSON.stringify(v, null, 2));

/** The user's accounts at OAuth providers (the links `/oauth-providers` lists), each removable. */
function LinkedAccounts({ user, onChanged }: { user: ServerUser; onChanged: () => Promise<void> }) {
  const links = useLoad(() => user.listOAuthProviders(), [user]);
  const [remove, removeState] = useAction(async (id: string) => {
    await links.value!.find((l) => l.id === id)!.delete();
    await links.reload();
    await onChanged();
  });
  return (
    <div className="vs-stack">
      <h2 style={{ margin: 0, fontSize: "1.15rem" }}>Linked accounts</h2>
      <ErrorAlert error={links.error ?? removeState.error} />
      <Table
        caption="Linked OAuth accounts"
        rows={links.value ?? []}
        loadingRows={links.status === "loading" ? 1 : 0}
        rowKey={(l) => l.id}
        empty="No linked account."
        columns={[
          { key: "p", header: "Provider", render: (l) => l.type },
          { key: "id", header: "Account ID", render: (l) => <code className="vs-code">{l.accountId ?? "—"}</code>, hideOnPhone: true },
          { key: "e", header: "E-mail", render: (l) => l.email ?? "—" },
          { key: "s", header: "Sign-in", render: (l) => (l.allowSignIn ? "Yes" : "No"), hideOnPhone: true },
          { key: "c", header: "Connected account", render: (l) => (l.allowConnectedAccounts ? "Yes" : "No"), hideOnPhone: true },
          {
            key: "a",
            header: <span className="vs-sr-only">Actions</span>,
            render: (l) => (
              <ConfirmButton
                title={`Remove the linked ${l.type} account?`}
                message={`${user.primaryEmail ?? user.displayName ?? "The user"} can no longer sign in with this ${l.type} account${l.email ? ` (${l.email})` : ""}, and your app loses access to it. They can link it again themselves.`}
                confirmLabel="Remove account"
                disabled={removeState.pending}
                onConfirm={() => remove(l.id)}
              >
                Remove<span className="vs-sr-only"> {l.type} account</span>
              </ConfirmButton>
            ),
          },
        ]}
      />
    </div>
  );
}

/** How many passkeys the user has (none while passkey sign-in is off for them), with the last use. */
function PasskeyCount({ user }: { user: ServerUser }) {
  const passkeys = useLoad(() => user.listPasskeys(), [user]);
  if (passkeys.status === "loading") return <Skeleton height={16} width={80} />;
  if (passkeys.error || !passkeys.value) return <span className="vs-muted">unavailable</span>;
  const list = passkeys.value;
  const last = list.map((p) => p.lastUsedAt?.getTime() ?? 0).reduce((a, b) => Math.max(a, b), 0);
  return (
    <span data-testid="passkey-count">
      {list.length === 0 ? "None" : `${list.length} passkey${list.length === 1 ? "" : "s"}`}
      {last ? <span className="vs-muted"> (last used {new Date(last).toLocaleString()})</span> : null}
    </span>
  );
}

function MetadataEditor({ user, onSaved }: { user: ServerUser; onSaved: () => Promise<void> }) {
  const [client, setClient] = useState(pretty(user.clientMetadata));
  const [readOnly, setReadOnly] = useState(pretty(user.clientReadOnlyMetadata));
  const [server, setServer] = useState(pretty(user.serverMetadata));
  const [saved, setSaved] = useState(false);
  const parsed = { client: parseJson(client), readOnly: parseJson(readOnly), server: parseJson(server) };
  const valid = parsed.client.ok && parsed.readOnly.ok && parsed.server.ok;
  const [save, state] = useAction(async () => {
    await user.update({
      clientMetadata: valueOf(parsed.client),
      clientReadOnlyMetadata: valueOf(parsed.readOnly),
      serverMetadata: valueOf(parsed.server),
    });
    setSaved(true);
    await onSaved();
  });
  const err = (p: { ok: boolean; error?: string }, name: string) => (p.ok ? null : `${name} ${p.error}`);
  return (
    <form
      className="vs-stack"
      noValidate
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        setSaved(false);
        if (valid) void save();
      }}
    >
      <h2 style={{ margin: 0, fontSize: "1.15rem" }}>Metadata</h2>
      <div className="vs-grid-2">
        <TextArea label="Client metadata" hint="Readable and writable by the user's own app." value={client} onChange={setClient} error={err(parsed.client, "Client metadata")} />
        <TextArea label="Client read-only metadata" hint="Readable by the app, writable only by your server." value={readOnly} onChange={setReadOnly} error={err(parsed.readOnly, "Client read-only metadata")} />
        <TextArea label="Server metadata" hint="Only your server can read it." value={server} onChange={setServer} error={err(parsed.server, "Server metadata")} />
      </div>
      <ErrorAlert error={state.error} />
      {saved ? <Alert kind="success">Metadata saved.</Alert> : null}
      <div>
        <Button type="submit" variant="primary" loading={state.pending} disabled={!valid}>
          Save metadata
        </Button>
      </div>
    </form>
  );
}

function ProfileEditor({ user, onSaved }: { user: ServerUser; onSaved: () => Promise<void> }) {
  const [name, setName] = useState(user.displayName ?? "");
  const [email, setEmail] = useState(user.primaryEmail ?? "");
  const [saved, setSaved] = useState(false);
  const [save, state] = useAction(async () => {
    await user.update({ displayName: name.trim(), primaryEmail: email.trim() || null });
    setSaved(true);
    await onSaved();
  });
  return (
    <form
      className="vs-stack"
      noValidate
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        setSaved(false);
        void save();
      }}
    >
      <h2 style={{ margin: 0, fontSize: "1.15rem" }}>Profile</h2>
      <div className="vs-grid-2">
        <TextField label="Display name" value={name} onChange={setName} maxLength={256} />
        <TextField label="Primary e-mail" type="email" value={email} onChange={setEmail} />
      </div>
      <ErrorAlert error={state.error} />
      {saved ? <Alert kind="success">Profile saved.</Alert> : null}
      <div>
        <Button type="submit" loading={state.pending}>
          Save profile
        </Button>
      </div>
    </form>
  );
}

export function UserDetail({ adminApp, basePath, userId, project, areaHref }: AreaProps & { userId: string }) {
  const user = useLoad(() => adminApp.getUser(userId), [adminApp, userId]);
  const domains = useLoad(async () => (await adminApp.getProject()).config.domains, [adminApp]);
  const u = user.value;
  useTitle(`${u?.primaryEmail ?? "User"} · Vestibule`);
  return (
    <div className="vs-stack">
      <Link href={basePath}>← All users</Link>
      <ErrorAlert error={user.error} />
      {user.status === "loading" ? (
        <Card>
          <Skeleton height={64} />
        </Card>
      ) : null}
      {user.status === "ok" && !u ? <Alert kind="error">This user does not exist (any more).</Alert> : null}
      {u ? (
        <>
          <Card className="vs-stack">
            <div className="vs-row" style={{ gap: 16 }}>
              <Avatar name={u.displayName} email={u.primaryEmail} imageUrl={u.profileImageUrl} size={56} />
              <div style={{ flex: "1 1 auto", minWidth: 0, overflowWrap: "anywhere" }}>
                <h1 style={{ margin: 0, fontSize: "1.4rem" }}>{u.displayName ?? u.primaryEmail ?? "Unnamed user"}</h1>
                <div className="vs-muted">{u.primaryEmail}</div>
              </div>
              <UserActions user={u} projectId={project.id} domains={domains.value} areaHref={areaHref} onChanged={user.reload} onDeleted={() => navigate(basePath)} small={false} />
            </div>
            <dl className="vs-kv">
              <dt>User ID</dt>
              <dd>
                <code className="vs-code">{u.id}</code>
              </dd>
              <dt>E-mail verified</dt>
              <dd>{u.primaryEmailVerified ? "Yes" : "No"}</dd>
              <dt>Signed up</dt>
              <dd>{u.signedUpAt.toLocaleString()}</dd>
              <dt>Last active</dt>
              <dd>{u.lastActiveAt.toLocaleString()}</dd>
              <dt>Sign-in methods</dt>
              <dd>{[u.hasPassword ? "password" : "", u.otpAuthEnabled ? "e-mail code" : "", u.passkeyAuthEnabled ? "passkey" : "", ...u.oauthProviders.map((p) => p.id)].filter(Boolean).join(", ") || "—"}</dd>
              <dt>Passkeys</dt>
              <dd>
                <PasskeyCount key={`k${u.id}`} user={u} />
              </dd>
              <dt>Two-factor (authenticator app)</dt>
              <dd data-testid="mfa-state">{u.isMultiFactorRequired ? "On: sign-in asks for a code from their authenticator app" : "Off"}</dd>
              <dt>Restriction</dt>
              <dd>{restrictionText(u)}</dd>
            </dl>
          </Card>
          <Card>
            <UserContactChannels key={`c${u.id}`} user={u} />
          </Card>
          <Card>
            <UserSessions key={`s${u.id}`} user={u} />
          </Card>
          <Card>
            <LinkedAccounts key={`l${u.id}`} user={u} onChanged={user.reload} />
          </Card>
          <Card>
            <UserTeams key={`t${u.id}`} user={u} areaHref={areaHref} />
          </Card>
          <Card>
            <ProfileEditor key={`p${u.id}`} user={u} onSaved={user.reload} />
          </Card>
          <Card>
            <MetadataEditor key={`m${u.id}`} user={u} onSaved={user.reload} />
          </Card>
          <Card>
            <RestrictionEditor key={`r${u.id}:${u.restrictedByAdmin}`} user={u} onSaved={user.reload} />
          </Card>
        </>
      ) : null}
    </div>
  );
}
