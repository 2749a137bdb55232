import { useState, type FormEvent } from "react";
import type { CurrentUser } from "@vestibule/js";
import { Alert, ApiKeyTable, Button, CopyField, ErrorAlert, Select, TextField, useAction, useLoad } from "@vestibule/ui";

const EXPIRY = [
  { value: "30", label: "30 days" },
  { value: "90", label: "90 days" },
  { value: "365", label: "1 year" },
  { value: "never", label: "Never" },
];

export function ApiKeysSection({ user }: { user: CurrentUser }) {
  const keys = useLoad(() => user.listApiKeys(), [user]);
  const [description, setDescription] = useState("");
  const [expiry, setExpiry] = useState("90");
  const [touched, setTouched] = useState(false);
  const [created, setCreated] = useState<string | null>(null);
  const [create, createState] = useAction(async () => {
    const key = await user.createApiKey({
      description: description.trim(),
      expiresAt: expiry === "never" ? null : new Date(Date.now() + Number(expiry) * 86_400_000),
    });
    setCreated(key.value);
    setDescription("");
    setTouched(false);
    await keys.reload();
  });
  return (
    <div className="vs-stack">
      <h2>API keys</h2>
      {created ? (
        <Alert kind="success" title="Copy your new key now: it will not be shown again.">
          <CopyField label="New API key" value={created} />
        </Alert>
      ) : null}
      <ApiKeyTable
        caption="Your API keys"
        keys={keys}
        loadingRows={2}
        keyColumns={[{ key: "v", header: "Key", render: (k) => <code className="vs-code">…{k.value.lastFour}</code> }]}
        expiresHideOnPhone
        revokeControl={(_k, revoke) => (
          <Button small variant="danger" onClick={() => void revoke.run()} disabled={revoke.pending}>
            Revoke
          </Button>
        )}
      />
      <form
        className="vs-stack"
        noValidate
        onSubmit={(e: FormEvent) => {
          e.preventDefault();
          setTouched(true);
          if (description.trim()) void create();
        }}
      >
        <h3>Create an API key</h3>
        <div className="vs-grid-2">
          <TextField label="Description" value={description} onChange={setDescription} error={touched && !description.trim() ? "Please describe what the key is for." : null} />
          <Select label="Expires after" value={expiry} onChange={setExpiry} options={EXPIRY} />
        </div>
        <ErrorAlert error={createState.error} />
        <div>
          <Button type="submit" variant="primary" loading={createState.pending}>
            Create key
          </Button>
        </div>
      </form>
    </div>
  );
}
