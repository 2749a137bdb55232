import type { CurrentUser, Project } from "@vestibule/js";
import { Button, ErrorAlert, Table, useAction, useLoad } from "@vestibule/ui";
import { providerName } from "../methods.tsx";

/**
 * The accounts at OAuth providers linked to the user: listed with their e-mail, disconnected one by one, and new ones
 * connected through the provider (the link flow returns to this page).
 */
export function LinkedAccountsSection({ user, project }: { user: CurrentUser; project: Project }) {
  const links = useLoad(() => user.listOAuthProviders(), [user]);
  const [disconnect, disconnectState] = useAction(async (id: string) => {
    await links.value!.find((l) => l.id === id)!.delete();
    await links.reload();
  });
  // Starts the provider's link flow (a redirect); comes back here afterwards.
  const [connect, connectState] = useAction(async (provider: string) => {
    await user.getConnectedAccount(provider, { or: "redirect" });
    await links.reload();
  });
  const linked = new Set((links.value ?? []).map((l) => l.type));
  const available = project.config.oauthProviders.filter((p) => !linked.has(p.id));
  return (
    <div className="vs-stack">
      <h2>Linked accounts</h2>
      <ErrorAlert error={links.error ?? disconnectState.error ?? connectState.error} />
      <Table
        caption="Accounts at other providers you can sign in with"
        rows={links.value ?? []}
        loadingRows={links.status === "loading" ? 1 : 0}
        rowKey={(l) => l.id}
        empty="No linked accounts yet."
        columns={[
          { key: "p", header: "Provider", render: (l) => providerName(l.type) },
          { key: "e", header: "Account", render: (l) => l.email ?? "—" },
          { key: "s", header: "Sign-in", render: (l) => (l.allowSignIn ? <span className="vs-badge vs-badge-ok">Yes</span> : <span className="vs-badge">No</span>), hideOnPhone: true },
          {
            key: "a",
            header: <span className="vs-sr-only">Actions</span>,
            render: (l) => (
              <Button small variant="danger" onClick={() => void disconnect(l.id)} disabled={disconnectState.pending} aria-label={`Disconnect ${providerName(l.type)}`}>
                Disconnect
              </Button>
            ),
          },
        ]}
      />
      {available.length > 0 ? (
        <div className="vs-stack" style={{ gap: 8 }}>
          <h3>Connect another account</h3>
          {available.map((p) => (
            <Button key={p.id} onClick={() => void connect(p.id)} loading={connectState.pending} data-provider={p.id}>
              Connect {providerName(p.id)}
            </Button>
          ))}
        </div>
      ) : null}
    </div>
  );
}
