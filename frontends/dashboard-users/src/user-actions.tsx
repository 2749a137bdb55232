/**
 * What an owner can do to a user from the users table (and the detail page): open the app as them (an impersonation
 * session: a new tab on the app's handler page with a one-time ticket, or a console line, see impersonation.ts), mark their e-mail verified, restrict them or lift the restriction, delete them. One dialog per user, in
 * steps: the actions, then the confirmation or result of the chosen one (deleting names the user and asks first).
 */
import { useState, type FormEvent } from "react";
import type { ServerUser } from "@vestibule/js";
import { Alert, Button, CopyField, Dialog, ErrorAlert, Link, TextField, useAction, type AreaProps } from "@vestibule/ui";
import { appBaseUrl, impersonationSnippet, impersonationUrl } from "./impersonation.ts";

/** How the dashboard names a user: display name, else e-mail, else id. */
export function userName(user: Pick<ServerUser, "displayName" | "primaryEmail" | "id">): string {
  return user.displayName ?? user.primaryEmail ?? user.id;
}

type Step = "menu" | "restrict" | "delete" | "impersonate";

export interface UserActionsProps {
  readonly user: ServerUser;
  readonly projectId: string;
  /** The project's trusted domains (undefined while loading). */
  readonly domains: readonly { domain: string; handlerPath: string }[] | undefined;
  readonly areaHref: AreaProps["areaHref"];
  /** After a change, or on closing after a failure (the user may have changed elsewhere): reload what shows the user. */
  readonly onChanged: () => void | Promise<void>;
  /** After deleting the user. */
  readonly onDeleted: () => void;
  /** The button's look: small in a table row. */
  readonly small?: boolean;
}

export function UserActions({ user, projectId, domains, areaHref, onChanged, onDeleted, small = true }: UserActionsProps) {
  const [open, setOpen] = useState(false);
  const [step, setStep] = useState<Step>("menu");
  const [reason, setReason] = useState("");
  const [snippet, setSnippet] = useState<string | null>(null);
  /** The app's impersonation page opened (or to open, when the browser blocked the tab) for a ticket. */
  const [ticketUrl, setTicketUrl] = useState<string | null>(null);
  const [tabBlocked, setTabBlocked] = useState(false);
  const [chosen, setChosen] = useState("");
  const name = userName(user);
  // After a failure the user may have changed elsewhere (deleted, restricted): what shows them is reloaded when the
  // dialog closes, not at once, which could remove the row and its dialog with the sentence saying what happened.
  const [stale, setStale] = useState(false);
  const close = () => {
    setOpen(false);
    setStep("menu");
    setSnippet(null);
    setTicketUrl(null);
    setTabBlocked(false);
    setReason("");
    if (stale) {
      setStale(false);
      void onChanged();
    }
  };
  const [run, state] = useAction(async (action: () => Promise<void>) => {
    await action();
    return true;
  });
  /** Runs one action; on success `after` (by default: close the dialog and reload what shows the user). */
  const act = (label: string, action: () => Promise<void>, after?: () => void) => {
    setChosen(label);
    void run(action).then((ok) => {
      if (!ok) return setStale(true);
      if (after) return after();
      setOpen(false);
      setStep("menu");
      setReason("");
      void onChanged();
    });
  };
  const appUrl = domains ? appBaseUrl(domains) : undefined;
  const appHost = appUrl ? new URL(appUrl).host : "";
  const makeSnippet = async () => {
    const session = await user.createSession({ isImpersonation: true, expiresInMillis: 3_600_000 });
    const { refreshToken } = await session.getTokens();
    setSnippet(impersonationSnippet(projectId, refreshToken ?? ""));
  };
  const openApp = () => {
    // The tab opens in the click: one opened once the ticket has arrived would be a pop-up that browsers block.
    const tab = appUrl ? window.open("", "_blank") : null;
    if (tab) tab.opener = null;
    act(
      "impersonate",
      async () => {
        if (!domains || !appUrl) return makeSnippet();
        try {
          const { ticket } = await user.createImpersonationTicket({ expiresInMillis: 3_600_000 });
          const target = impersonationUrl(domains, ticket)!;
          setTicketUrl(target);
          if (tab) tab.location.href = target;
          else setTabBlocked(true);
        } catch (err) {
          tab?.close();
          throw err;
        }
      },
      () => {
        setStep("impersonate");
        void onChanged();
      },
    );
  };
  const titles: Record<Step, string> = {
    menu: `Actions for ${name}`,
    restrict: `Restrict ${name}?`,
    delete: `Delete ${name}?`,
    impersonate: `Open the app as ${name}`,
  };
  // Inside a clickable table row: clicks here (the dialog included, React bubbles through portals and modals alike)
  // must not open the user's page.
  return (
    <span onClick={(e) => e.stopPropagation()}>
      <Button
        small={small}
        onClick={() => setOpen(true)}
      >
        Actions<span className="vs-sr-only"> for {name}</span>
      </Button>
      <Dialog open={open} onClose={close} title={titles[step]}>
        <div className="vs-stack">
          <ErrorAlert error={state.error} />
          {step === "menu" ? (
            <div className="vs-stack" style={{ gap: 8 }}>
              <Button
                loading={state.pending && chosen === "impersonate"}
                disabled={state.pending}
                onClick={openApp}
              >
                Open the app as this user
              </Button>
              {user.primaryEmail && !user.primaryEmailVerified ? (
                <Button loading={state.pending && chosen === "verify"} disabled={state.pending} onClick={() => act("verify", () => user.update({ primaryEmailVerified: true }))}>
                  Mark e-mail as verified
                </Button>
              ) : null}
              {user.restrictedByAdmin ? (
                <Button loading={state.pending && chosen === "lift"} disabled={state.pending} onClick={() => act("lift", () => user.update({ restrictedByAdmin: false }))}>
                  Lift restriction
                </Button>
              ) : (
                <Button disabled={state.pending} onClick={() => setStep("restrict")}>
                  Restrict
                </Button>
              )}
              <Button variant="danger" disabled={state.pending} onClick={() => setStep("delete")}>
                Delete user
              </Button>
              <div>
                <Button variant="ghost" onClick={close}>
                  Close
                </Button>
              </div>
            </div>
          ) : null}
          {step === "restrict" ? (
            <form
              className="vs-stack"
              noValidate
              onSubmit={(e: FormEvent) => {
                e.preventDefault();
                act("restrict", () => user.update({ restrictedByAdmin: true, restrictedByAdminReason: reason.trim() || null }));
              }}
            >
              <p style={{ margin: 0 }}>
                {name} keeps their account and can still sign in, but your app treats them as signed out unless it asks for restricted users. You can lift the restriction at any time.
              </p>
              <TextField label="Reason (shown to the user)" value={reason} onChange={setReason} maxLength={1000} />
              <div className="vs-row">
                <Button type="submit" variant="primary" loading={state.pending}>
                  Restrict user
                </Button>
                <Button onClick={() => setStep("menu")}>Cancel</Button>
              </div>
            </form>
          ) : null}
          {step === "delete" ? (
            <>
              <p style={{ margin: 0 }}>
                {name}
                {user.primaryEmail && user.primaryEmail !== name ? ` (${user.primaryEmail})` : ""} is deleted with their sessions, linked accounts and team memberships. This cannot be undone.
              </p>
              <div className="vs-row">
                <Button variant="danger" loading={state.pending} onClick={() => act("delete", () => user.delete(), () => {
                      setOpen(false);
                      onDeleted();
                    })}>
                  Delete user
                </Button>
                <Button onClick={() => setStep("menu")}>Cancel</Button>
              </div>
            </>
          ) : null}
          {step === "impersonate" && ticketUrl ? (
            <>
              {tabBlocked ? (
                <>
                  <p style={{ margin: 0 }}>
                    Your browser kept the new tab from opening. This link opens {appHost} signed in as {name}; it works once, within a minute.
                  </p>
                  <div>
                    <a className="vs-btn vs-btn-primary" href={ticketUrl} target="_blank" rel="noopener noreferrer">
                      Open {appHost} as {name}
                    </a>
                  </div>
                </>
              ) : (
                <p style={{ margin: 0 }}>
                  A new tab opens {appHost} signed in as {name}, in a one-hour session marked as impersonation. Its link works once, within a minute: to open the app again, start again here.
                </p>
              )}
              <details>
                <summary>App without Vestibule&apos;s handler pages?</summary>
                <div className="vs-stack" style={{ marginTop: 8 }}>
                  <p style={{ margin: 0 }}>
                    An app that does not serve the handler pages (for example one built on the published @stackframe/js) cannot open that link. Paste a console line into a tab of
                    your app instead (Developer tools → Console): the tab reloads signed in as {name}.
                  </p>
                  {snippet ? (
                    <CopyField label="Impersonation snippet" value={snippet} />
                  ) : (
                    <div>
                      <Button loading={state.pending && chosen === "snippet"} disabled={state.pending} onClick={() => act("snippet", makeSnippet, () => void onChanged())}>
                        Make a console line
                      </Button>
                    </div>
                  )}
                </div>
              </details>
              <div>
                <Button onClick={close}>Done</Button>
              </div>
            </>
          ) : null}
          {step === "impersonate" && !ticketUrl && snippet ? (
            <>
              <p style={{ margin: 0 }}>
                A one-hour session as {name} is ready, marked as impersonation. Open your app, then paste this line into the browser console of that tab (Developer tools → Console): the
                tab reloads signed in as {name}.
              </p>
              <CopyField label="Impersonation snippet" value={snippet} />
              {domains ? (
                <Alert kind="info">
                  Your app&apos;s address is not known yet: <Link href={areaHref("auth", "#domains")}>add a trusted domain</Link> to open it from here.
                </Alert>
              ) : null}
              <div>
                <Button onClick={close}>Done</Button>
              </div>
            </>
          ) : null}
        </div>
      </Dialog>
    </span>
  );
}
