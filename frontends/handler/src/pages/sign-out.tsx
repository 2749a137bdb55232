import { useEffect } from "react";
import { useStackApp } from "@vestibule/react";
import { ErrorAlert, Spinner, useAction } from "@vestibule/ui";
import { AuthCard } from "../layout.tsx";
import { once } from "../one-time.ts";

/** Signs the current user out on arrival (invalidates the session, clears the tokens), then goes to after-sign-out. */
export default function SignOut() {
  const app = useStackApp();
  const [run, state] = useAction(() => once("sign-out", () => app.signOut()));
  useEffect(() => void run(), [run]);
  return (
    <AuthCard title="Signing out">
      {state.error ? <ErrorAlert error={state.error} /> : <Spinner label="Signing out" />}
    </AuthCard>
  );
}
