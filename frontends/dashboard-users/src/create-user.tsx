import { useState, type FormEvent } from "react";
import type { StackAdminApp } from "@vestibule/js";
import { Button, Dialog, ErrorAlert, PasswordField, TextField, useAction } from "@vestibule/ui";

export function CreateUserDialog({ open, onClose, adminApp, onCreated }: { open: boolean; onClose: () => void; adminApp: StackAdminApp; onCreated: (id: string) => void }) {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [name, setName] = useState("");
  const [create, state] = useAction(async () => {
    const user = await adminApp.createUser({
      primaryEmail: email.trim() || null,
      primaryEmailAuthEnabled: !!email.trim(),
      password: password || undefined,
      displayName: name.trim() || undefined,
    });
    setEmail("");
    setPassword("");
    setName("");
    onCreated(user.id);
  });
  return (
    <Dialog open={open} onClose={onClose} title="Create a user">
      <form
        className="vs-stack"
        noValidate
        onSubmit={(e: FormEvent) => {
          e.preventDefault();
          void create();
        }}
      >
        <TextField label="E-mail" type="email" value={email} onChange={setEmail} />
        <TextField label="Display name" value={name} onChange={setName} maxLength={256} />
        <PasswordField label="Password (optional)" autoComplete="new-password" value={password} onChange={setPassword} maxLength={70} />
        <ErrorAlert error={state.error} />
        <div className="vs-row">
          <Button type="submit" variant="primary" loading={state.pending}>
            Create user
          </Button>
          <Button onClick={onClose}>Cancel</Button>
        </div>
      </form>
    </Dialog>
  );
}
