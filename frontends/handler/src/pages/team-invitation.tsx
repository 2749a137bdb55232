import { useEffect, useState } from "react";
import { AFTER_AUTH_RETURN_TO_PARAM } from "@vestibule/js";
import { useStackApp, useUser } from "@vestibule/react";
import { Alert, Button, ErrorAlert, Link, Spinner, useAction } from "@vestibule/ui";
import { AuthCard } from "../layout.tsx";
import { once, useQueryCode } from "../one-time.ts";

/**
 * Opened from an invitation e-mail (`?code=`). A signed-out visitor signs in or up first and comes back here (the code
 * stays in the address for that); a signed-in one sees the team's name and accepts or declines.
 */
export default function TeamInvitation() {
  const app = useStackApp();
  const signedIn = useUser() !== null;
  const code = useQueryCode("code", { remove: false });
  const [details, setDetails] = useState<{ teamDisplayName: string } | null>(null);
  const [detailsError, setDetailsError] = useState<unknown>(null);
  const [accepted, setAccepted] = useState(false);
  const [declined, setDeclined] = useState(false);
  const [accept, acceptState] = useAction(async () => {
    const r = await app.acceptTeamInvitation(code!);
    if (r.status === "error") throw r.error;
    setAccepted(true);
  });
  useEffect(() => {
    if (!code || !signedIn) return;
    once(`invite:${code}`, () => app.getTeamInvitationDetails(code)).then(
      (r) => (r.status === "ok" ? setDetails(r.data) : setDetailsError(r.error)),
      setDetailsError,
    );
  }, [app, code, signedIn]);
  if (!code) {
    return (
      <AuthCard title="Team invitation">
        <Alert kind="error">This link has no invitation code. Open the link from the e-mail again.</Alert>
      </AuthCard>
    );
  }
  if (!signedIn) {
    const back = location.pathname + location.search;
    const q = `?${AFTER_AUTH_RETURN_TO_PARAM}=${encodeURIComponent(back)}`;
    return (
      <AuthCard title="You have been invited to a team" subtitle="Sign in or create an account to accept the invitation.">
        <Link className="vs-btn vs-btn-primary vs-btn-block" href={app.urls.signIn + q}>
          Sign in
        </Link>
        <Link className="vs-btn vs-btn-block" href={app.urls.signUp + q}>
          Create an account
        </Link>
      </AuthCard>
    );
  }
  if (accepted) {
    return (
      <AuthCard title="Invitation accepted">
        <Alert kind="success">You are now a member of {details?.teamDisplayName ?? "the team"}.</Alert>
        <Link className="vs-btn vs-btn-primary vs-btn-block" href={app.urls.home}>
          Continue
        </Link>
      </AuthCard>
    );
  }
  if (declined) {
    return (
      <AuthCard title="Invitation ignored">
        <p className="vs-muted">You did not join the team. You can still open the link again while it is valid.</p>
      </AuthCard>
    );
  }
  return (
    <AuthCard title="Team invitation">
      {detailsError ? <ErrorAlert error={detailsError} /> : null}
      {!details && !detailsError ? <Spinner label="Loading the invitation" /> : null}
      {details ? (
        <>
          <p style={{ margin: 0 }}>
            You are invited to join <strong>{details.teamDisplayName}</strong>.
          </p>
          <ErrorAlert error={acceptState.error} />
          <div className="vs-row">
            <Button variant="primary" onClick={() => void accept()} loading={acceptState.pending}>
              Join {details.teamDisplayName}
            </Button>
            <Button onClick={() => setDeclined(true)}>Ignore</Button>
          </div>
        </>
      ) : null}
    </AuthCard>
  );
}
