import { useState, type FormEvent } from "react";
import type { ServerUser } from "@vestibule/js";
import { Alert, Button, ErrorAlert, Switch, TextArea, TextField, useAction } from "@vestibule/ui";

/** What the restriction means, in words (issue 13: anonymous, unverified e-mail, restricted by an administrator). */
export function restrictionText(user: Pick<ServerUser, "isRestricted" | "restrictedReason">): string {
  if (!user.isRestricted) return "Not restricted";
  switch (user.restrictedReason?.type) {
    case "anonymous":
      return "Restricted: anonymous user";
    case "email_not_verified":
      return "Restricted: e-mail not verified (the project requires verified e-mails)";
    case "restricted_by_administrator":
      return "Restricted by an administrator";
    default:
      return "Restricted";
  }
}

/**
 * Shows whether the user is restricted and why, and lets an administrator restrict them (a reason the user may see,
 * private details only administrators see) or lift the restriction.
 */
export function RestrictionEditor({ user, onSaved }: { user: ServerUser; onSaved: () => Promise<void> }) {
  const [restricted, setRestricted] = useState(user.restrictedByAdmin);
  const [reason, setReason] = useState(user.restrictedByAdminReason ?? "");
  const [details, setDetails] = useState(user.restrictedByAdminPrivateDetails ?? "");
  const [saved, setSaved] = useState(false);
  const [save, state] = useAction(async () => {
    await user.update(
      restricted
        ? { restrictedByAdmin: true, restrictedByAdminReason: reason.trim() || null, restrictedByAdminPrivateDetails: details.trim() || null }
        : { restrictedByAdmin: false },
    );
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
      <h2 style={{ margin: 0, fontSize: "1.15rem" }}>Restriction</h2>
      <Alert kind={user.isRestricted ? "warning" : "info"} title={restrictionText(user)}>
        Restricted users can sign in, but apps treat them as signed out unless they ask for restricted users.
      </Alert>
      <Switch
        label="Restricted by an administrator"
        description="The user keeps their account and sessions; your app decides what a restricted user may do."
        checked={restricted}
        onChange={setRestricted}
      />
      {restricted ? (
        <div className="vs-grid-2">
          <TextField label="Reason (shown to the user)" value={reason} onChange={setReason} maxLength={1000} />
          <TextArea label="Private details (administrators only)" value={details} onChange={setDetails} />
        </div>
      ) : null}
      <ErrorAlert error={state.error} />
      {saved ? <Alert kind="success">Restriction saved.</Alert> : null}
      <div>
        <Button type="submit" loading={state.pending}>
          Save restriction
        </Button>
      </div>
    </form>
  );
}
