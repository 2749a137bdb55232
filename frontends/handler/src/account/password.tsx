import { useState, type FormEvent } from "react";
import type { CurrentUser } from "@vestibule/js";
import { Alert, Button, ErrorAlert, PasswordField, errorCode, useAction } from "@vestibule/ui";
import { confirmationError, passwordError } from "../validation.ts";

const WRONG_CURRENT_PASSWORD = "Your current password is not correct.";

export function PasswordSection({ user }: { user: CurrentUser }) {
  const [oldPassword, setOld] = useState("");
  const [password, setPassword] = useState("");
  const [confirmation, setConfirmation] = useState("");
  const [touched, setTouched] = useState(false);
  const [done, setDone] = useState(false);
  const [save, state] = useAction(async () => {
    const err = user.hasPassword ? await user.updatePassword({ oldPassword, newPassword: password }) : await user.setPassword({ password });
    if (err) throw err;
    setDone(true);
    setOld("");
    setPassword("");
    setConfirmation("");
    setTouched(false);
  });
  // The API answers a wrong current password with PASSWORD_CONFIRMATION_MISMATCH ("Passwords do not match."), which
  // reads as if the two new passwords differed: it is shown as what it means, under the current password.
  const wrongOld = user.hasPassword && errorCode(state.error) === "PASSWORD_CONFIRMATION_MISMATCH";
  return (
    <form
      className="vs-stack"
      noValidate
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        setTouched(true);
        setDone(false);
        state.reset();
        if (!passwordError(password) && !confirmationError(password, confirmation) && (!user.hasPassword || oldPassword)) void save();
      }}
    >
      <h2>{user.hasPassword ? "Change password" : "Set a password"}</h2>
      {user.hasPassword ? (
        <PasswordField label="Current password" autoComplete="current-password" value={oldPassword} onChange={setOld} error={touched && !oldPassword ? "Please enter your current password." : wrongOld ? WRONG_CURRENT_PASSWORD : null} />
      ) : (
        <p className="vs-muted" style={{ margin: 0 }}>
          You sign in without a password. Set one to also sign in with your e-mail and password.
        </p>
      )}
      <PasswordField label="New password" autoComplete="new-password" value={password} onChange={setPassword} error={touched ? passwordError(password) : null} maxLength={70} />
      <PasswordField label="Repeat new password" autoComplete="new-password" value={confirmation} onChange={setConfirmation} error={touched ? confirmationError(password, confirmation) : null} maxLength={70} />
      {wrongOld ? null : <ErrorAlert error={state.error} />}
      {done ? <Alert kind="success">Password saved. Your other sessions were signed out.</Alert> : null}
      <div>
        <Button type="submit" variant="primary" loading={state.pending}>
          Save password
        </Button>
      </div>
    </form>
  );
}
