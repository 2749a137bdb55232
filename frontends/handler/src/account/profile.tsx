import { useState, type ChangeEvent, type FormEvent } from "react";
import type { CurrentUser } from "@vestibule/js";
import { Alert, Avatar, Button, ErrorAlert, TextField, useAction } from "@vestibule/ui";

/** Profile images are sent as a base64 data URL and must stay under 100 KB (spec §5). */
export const MAX_IMAGE_BYTES = 100 * 1024;

export function readImage(file: File): Promise<string> {
  if (!file.type.startsWith("image/")) return Promise.reject(new Error("Please choose an image file."));
  if (file.size >= MAX_IMAGE_BYTES) return Promise.reject(new Error("The image must be smaller than 100 KB."));
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(new Error("The image could not be read."));
    reader.readAsDataURL(file);
  });
}

export function ProfileSection({ user }: { user: CurrentUser }) {
  const [name, setName] = useState(user.displayName ?? "");
  const [saved, setSaved] = useState(false);
  const [save, saveState] = useAction(async () => {
    await user.update({ displayName: name.trim() });
    setSaved(true);
  });
  const [setImage, imageState] = useAction(async (value: string | null) => {
    await user.update({ profileImageUrl: value });
  });
  const [pickError, setPickError] = useState<string | null>(null);
  const onFile = (e: ChangeEvent<HTMLInputElement>) => {
    const file = e.target.files?.[0];
    e.target.value = "";
    if (!file) return;
    setPickError(null);
    readImage(file).then((url) => void setImage(url), (err: Error) => setPickError(err.message));
  };
  const nameError = name.length > 256 ? "Display names can be at most 256 characters long." : null;
  return (
    <div className="vs-stack">
      <h2>Profile</h2>
      <div className="vs-row" style={{ gap: 16 }}>
        <Avatar name={user.displayName} email={user.primaryEmail} imageUrl={user.profileImageUrl} size={64} />
        <div className="vs-stack" style={{ gap: 6 }}>
          <label className="vs-btn vs-btn-small" style={{ width: "fit-content" }}>
            {imageState.pending ? <span className="vs-spinner" aria-hidden="true" /> : null}
            Upload a picture
            <input type="file" accept="image/*" className="vs-sr-only" onChange={onFile} aria-describedby="vs-image-hint" />
          </label>
          <span id="vs-image-hint" className="vs-hint">
            PNG, JPEG or GIF under 100 KB.
          </span>
          {user.profileImageUrl ? (
            <Button small variant="ghost" onClick={() => void setImage(null)}>
              Remove picture
            </Button>
          ) : null}
        </div>
      </div>
      {pickError ? <Alert kind="error">{pickError}</Alert> : null}
      <ErrorAlert error={imageState.error} />
      <form
        className="vs-stack"
        noValidate
        onSubmit={(e: FormEvent) => {
          e.preventDefault();
          setSaved(false);
          if (!nameError) void save();
        }}
      >
        <TextField label="Display name" value={name} onChange={(v) => { setName(v); setSaved(false); }} autoComplete="name" error={nameError} />
        <ErrorAlert error={saveState.error} />
        {saved ? <Alert kind="success">Profile saved.</Alert> : null}
        <div>
          <Button type="submit" variant="primary" loading={saveState.pending}>
            Save profile
          </Button>
        </div>
      </form>
    </div>
  );
}
