import { useState } from "react";
import type { CurrentUser } from "@vestibule/js";
import { Alert, Button, ErrorAlert, Table, TextField, useAction, useLoad } from "@vestibule/ui";

const when = (d: Date | null) => (d ? d.toLocaleString() : "Never");

/** The signed-in user's passkeys: add one (the browser's WebAuthn ceremony), rename, remove; with last use. */
export function PasskeysSection({ user }: { user: CurrentUser }) {
  const passkeys = useLoad(() => user.listPasskeys(), [user]);
  const [added, setAdded] = useState(false);
  const [editing, setEditing] = useState<{ id: string; name: string } | null>(null);
  const [add, addState] = useAction(async () => {
    setAdded(false);
    const r = await user.registerPasskey();
    if (r.status === "error") throw r.error;
    setAdded(true);
    await passkeys.reload();
  });
  const [remove, removeState] = useAction(async (id: string) => {
    await user.deletePasskey(id);
    setAdded(false);
    await passkeys.reload();
  });
  const [rename, renameState] = useAction(async () => {
    if (!editing || !editing.name.trim()) return;
    await user.renamePasskey(editing.id, editing.name.trim());
    setEditing(null);
    await passkeys.reload();
  });
  return (
    <div className="vs-stack">
      <h2>Passkeys</h2>
      <p className="vs-muted">Sign in with your device's screen lock, fingerprint or face instead of a password.</p>
      {added ? <Alert kind="success">Passkey added. You can now sign in with it.</Alert> : null}
      <ErrorAlert error={passkeys.error ?? addState.error ?? removeState.error ?? renameState.error} />
      <Table
        caption="Your passkeys"
        rows={passkeys.value ?? []}
        loadingRows={passkeys.status === "loading" ? 1 : 0}
        rowKey={(p) => p.id}
        empty="No passkeys yet."
        columns={[
          {
            key: "n",
            header: "Name",
            render: (p) =>
              editing?.id === p.id ? (
                <form
                  className="vs-row"
                  onSubmit={(e) => {
                    e.preventDefault();
                    void rename();
                  }}
                >
                  <TextField label={`New name for ${p.name}`} value={editing.name} onChange={(name) => setEditing({ id: p.id, name })} />
                  <Button small type="submit" loading={renameState.pending}>
                    Save
                  </Button>
                </form>
              ) : (
                p.name
              ),
          },
          { key: "c", header: "Added", render: (p) => p.createdAt.toLocaleDateString(), hideOnPhone: true },
          { key: "u", header: "Last used", render: (p) => when(p.lastUsedAt) },
          {
            key: "a",
            header: <span className="vs-sr-only">Actions</span>,
            render: (p) => (
              <span className="vs-row">
                <Button small onClick={() => setEditing({ id: p.id, name: p.name })} aria-label={`Rename ${p.name}`}>
                  Rename
                </Button>
                <Button small variant="danger" onClick={() => void remove(p.id)} disabled={removeState.pending} aria-label={`Remove ${p.name}`}>
                  Remove
                </Button>
              </span>
            ),
          },
        ]}
      />
      <div>
        <Button variant="primary" onClick={() => void add()} loading={addState.pending}>
          Add a passkey
        </Button>
      </div>
    </div>
  );
}
