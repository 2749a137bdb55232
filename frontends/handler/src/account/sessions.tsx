import type { CurrentUser } from "@vestibule/js";
import { useActiveSessions } from "@vestibule/react";
import { Button, ErrorAlert, Table, useAction } from "@vestibule/ui";

const when = (d: Date | undefined) => (d ? d.toLocaleString() : "—");

export function SessionsSection({ user }: { user: CurrentUser }) {
  const sessions = useActiveSessions();
  // revokeSession refreshes the cached list, so the table updates by itself.
  const [revoke, state] = useAction((id: string) => user.revokeSession(id));
  return (
    <div className="vs-stack">
      <h2>Active sessions</h2>
      <ErrorAlert error={state.error} />
      <Table
        caption="Your active sessions"
        rows={sessions}
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
