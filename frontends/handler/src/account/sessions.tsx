import type { CurrentUser } from "@vestibule/js";
import { Button, ErrorAlert, Table, useAction, useLoad } from "@vestibule/ui";

const when = (d: Date | undefined) => (d ? d.toLocaleString() : "—");

export function SessionsSection({ user }: { user: CurrentUser }) {
  const sessions = useLoad(() => user.getActiveSessions(), [user]);
  const [revoke, state] = useAction(async (id: string) => {
    await user.revokeSession(id);
    await sessions.reload();
  });
  return (
    <div className="vs-stack">
      <h2>Active sessions</h2>
      <ErrorAlert error={sessions.error ?? state.error} />
      <Table
        caption="Your active sessions"
        rows={sessions.value ?? []}
        loadingRows={sessions.status === "loading" ? 2 : 0}
        rowKey={(s) => s.id}
        columns={[
          { key: "where", header: "Session", render: (s) => <span>{s.isCurrentSession ? <strong>This device</strong> : (s.geoInfo?.cityName ?? s.geoInfo?.ip ?? "Another device")}{s.isImpersonation ? " (impersonation)" : ""}</span> },
          { key: "created", header: "Signed in", render: (s) => when(s.createdAt), hideOnPhone: true },
          { key: "used", header: "Last used", render: (s) => when(s.lastUsedAt) },
          {
            key: "actions",
            header: <span className="vs-sr-only">Actions</span>,
            render: (s) =>
              s.isCurrentSession ? null : (
                <Button small variant="danger" onClick={() => void revoke(s.id)} disabled={state.pending}>
                  Revoke
                </Button>
              ),
          },
        ]}
      />
    </div>
  );
}
