import { useState } from "react";
import type { CurrentUser } from "@vestibule/js";
import { useStackApp } from "@vestibule/react";
import { Alert, Button, Dialog, ErrorAlert, TextField, useAction } from "@vestibule/ui";

export function DeleteAccountSection({ user }: { user: CurrentUser }) {
  const app = useStackApp();
  const [open, setOpen] = useState(false);
  const [typed, setTyped] = useState("");
  const [remove, state] = useAction(async () => {
    await user.delete();
    await app.redirectToAfterSignOut({ replace: true });
  });
  return (
    <div className="vs-stack">
      <h2>Delete account</h2>
      <Alert kind="warning">Deleting your account removes your profile, e-mail addresses and sessions. This cannot be undone.</Alert>
      <div>
        <Button variant="danger" onClick={() => setOpen(true)}>
          Delete my account
        </Button>
      </div>
      <Dialog open={open} onClose={() => setOpen(false)} title="Delete your account?">
        <p style={{ margin: 0 }}>Type DELETE to confirm.</p>
        <TextField label="Confirmation" value={typed} onChange={setTyped} autoFocus />
        <ErrorAlert error={state.error} />
        <div className="vs-row">
          <Button variant="danger" disabled={typed !== "DELETE"} loading={state.pending} onClick={() => void remove()}>
            Delete account
          </Button>
          <Button onClick={() => setOpen(false)}>Cancel</Button>
        </div>
      </Dialog>
    </div>
  );
}
