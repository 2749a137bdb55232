/**
 * Parts of a user's detail page that list what belongs to the user: sessions (where, when, revoke after a
 * confirmation), contact channels and teams. Each loads on its own, so one failing shows its sentence without hiding
 * the rest of the page.
 */
import { StatusError, type ActiveSession, type ServerUser } from "@vestibule/js";
import { ConfirmButton, ErrorAlert, Link, Table, useAction, useLoad, type AreaProps } from "@vestibule/ui";

const heading = { margin: 0, fontSize: "1.15rem" } as const;

/** Where a session was last used, in words: "Berlin, BE, DE", else the IP address, else "Unknown". */
export function sessionPlace(s: Pick<ActiveSession, "geoInfo">): string {
  const g = s.geoInfo;
  const place = [g?.cityName, g?.regionCode, g?.countryCode].filter(Boolean).join(", ");
  return place || "Unknown";
}

export function UserSessions({ user }: { user: ServerUser }) {
  const sessions = useLoad(() => user.getActiveSessions(), [user.id]);
  const [revoke, state] = useAction(async (id: string) => {
    try {
      await user.revokeSession(id);
    } catch (err) {
      // "Session not found." is the API's text for a session that ended meanwhile.
      if (err instanceof StatusError && err.statusCode === 404) throw new Error("This session has already ended (it was revoked or has expired).");
      throw err;
    } finally {
      await sessions.reload();
    }
  });
  return (
    <div className="vs-stack">
      <h2 style={heading}>Sessions</h2>
      <p className="vs-muted" style={{ margin: 0 }}>
        Where the user is signed in. Revoking a session signs that device out at its next request.
      </p>
      <ErrorAlert error={sessions.error ?? state.error} />
      <Table<ActiveSession>
        caption="Sessions"
        rows={sessions.value ?? []}
        loadingRows={sessions.status === "loading" ? 1 : 0}
        rowKey={(s) => s.id}
        empty="No active sessions."
        columns={[
          {
            key: "where",
            header: "Place",
            render: (s) => (
              <span>
                {sessionPlace(s)}
                {s.isImpersonation ? <span className="vs-badge" style={{ marginLeft: 6 }}>Impersonation</span> : null}
              </span>
            ),
          },
          { key: "ip", header: "IP address", render: (s) => (s.geoInfo?.ip ? <code className="vs-code">{s.geoInfo.ip}</code> : "—"), hideOnPhone: true },
          { key: "created", header: "Signed in", render: (s) => s.createdAt.toLocaleString(), hideOnPhone: true },
          { key: "last", header: "Last active", render: (s) => (s.lastUsedAt ?? s.createdAt).toLocaleString() },
          {
            key: "x",
            header: <span className="vs-sr-only">Actions</span>,
            render: (s) => (
              <ConfirmButton
                title="Revoke this session?"
                message={`The device signed in ${s.createdAt.toLocaleString()} (${sessionPlace(s)}) is signed out at its next request. The user can sign in again.`}
                confirmLabel="Revoke session"
                disabled={state.pending}
                onConfirm={() => revoke(s.id)}
              >
                Revoke<span className="vs-sr-only"> the session from {sessionPlace(s)} signed in {s.createdAt.toLocaleString()}</span>
              </ConfirmButton>
            ),
          },
        ]}
      />
    </div>
  );
}

export function UserContactChannels({ user }: { user: ServerUser }) {
  const channels = useLoad(() => user.listContactChannels(), [user]);
  return (
    <div className="vs-stack">
      <h2 style={heading}>Contact channels</h2>
      <ErrorAlert error={channels.error} />
      <Table
        caption="Contact channels"
        rows={channels.value ?? []}
        loadingRows={channels.status === "loading" ? 1 : 0}
        rowKey={(c) => c.id}
        empty="No contact channel."
        columns={[
          { key: "v", header: "E-mail", render: (c) => <span style={{ overflowWrap: "anywhere" }}>{c.value}</span> },
          { key: "p", header: "Primary", render: (c) => (c.isPrimary ? "Yes" : "No"), hideOnPhone: true },
          { key: "ver", header: "Verified", render: (c) => (c.isVerified ? "Yes" : "No") },
          { key: "a", header: "Used for sign-in", render: (c) => (c.usedForAuth ? "Yes" : "No"), hideOnPhone: true },
        ]}
      />
    </div>
  );
}

export function UserTeams({ user, areaHref }: { user: ServerUser; areaHref: AreaProps["areaHref"] }) {
  const teams = useLoad(() => user.listTeams(), [user]);
  return (
    <div className="vs-stack">
      <h2 style={heading}>Teams</h2>
      <ErrorAlert error={teams.error} />
      <Table
        caption="Teams of the user"
        rows={teams.value ?? []}
        loadingRows={teams.status === "loading" ? 1 : 0}
        rowKey={(t) => t.id}
        empty="Not a member of any team."
        columns={[
          { key: "n", header: "Team", render: (t) => <Link href={areaHref("teams", `/${t.id}`)}>{t.displayName}</Link> },
          { key: "s", header: "Selected", render: (t) => (t.id === user.selectedTeam?.id ? "Yes" : "No"), hideOnPhone: true },
        ]}
      />
    </div>
  );
}
