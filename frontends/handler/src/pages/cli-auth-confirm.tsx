import { useState } from "react";
import { AFTER_AUTH_RETURN_TO_PARAM } from "@vestibule/js";
import { useStackApp, useUser } from "@vestibule/react";
import { Alert, Button, ErrorAlert, Link, useAction } from "@vestibule/ui";
import { AuthCard } from "../layout.tsx";
import { useQueryCode } from "../one-time.ts";

/**
 * `/handler/cli-auth-confirm?login_code=`: a command-line tool waits for this browser to confirm the login. The
 * signed-in user's session is handed to it (POST /auth/cli/complete) only after an explicit click.
 */
export default function CliAuthConfirm() {
  const app = useStackApp();
  const user = useUser();
  const loginCode = useQueryCode("login_code", { remove: false });
  const [done, setDone] = useState(false);
  const [confirm, state] = useAction(async () => {
    await app.confirmCliLogin(loginCode!);
    setDone(true);
  });
  if (!loginCode) {
    return (
      <AuthCard title="Authorize the CLI">
        <Alert kind="error">This link has no login code. Run the login command again.</Alert>
      </AuthCard>
    );
  }
  if (!user) {
    const q = `?${AFTER_AUTH_RETURN_TO_PARAM}=${encodeURIComponent(location.pathname + location.search)}`;
    return (
      <AuthCard title="Authorize the CLI" subtitle="Sign in to let the command-line tool act as you.">
        <Link className="vs-btn vs-btn-primary vs-btn-block" href={app.urls.signIn + q}>
          Sign in
        </Link>
      </AuthCard>
    );
  }
  if (done) {
    return (
      <AuthCard title="CLI authorized">
        <Alert kind="success">The command-line tool is signed in. You can close this window.</Alert>
      </AuthCard>
    );
  }
  return (
    <AuthCard title="Authorize the CLI" subtitle={`A command-line tool asks to sign in as ${user.primaryEmail ?? "you"}.`}>
      <Alert kind="warning">Only continue if you started this login yourself.</Alert>
      <ErrorAlert error={state.error} />
      <div className="vs-row">
        <Button variant="primary" onClick={() => void confirm()} loading={state.pending}>
          Authorize
        </Button>
        <Link className="vs-btn" href={app.urls.home}>
          Cancel
        </Link>
      </div>
    </AuthCard>
  );
}
