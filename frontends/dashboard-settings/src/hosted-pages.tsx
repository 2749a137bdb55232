/**
 * The "Hosted pages" card of the project settings: the project's own sign-in, sign-up and account settings pages on
 * the frontends origin (hosted-urls.ts), each with a copy button. Those pages run without a publishable key, so they
 * work only while the project does not require one (`project.requirePublishableClientKey`, on for a new project): the
 * card says so and turns the requirement off after a confirmation that explains publishable keys are public.
 */
import { useState } from "react";
import type { AdminProject } from "@vestibule/js";
import { Alert, Button, Card, CopyField, Dialog, ErrorAlert, Link, Skeleton, Switch, useAction } from "@vestibule/ui";
import { HOSTED_PAGES, hostedOriginTrusted, hostedPageUrl } from "./hosted-urls.ts";

export interface HostedPagesProps {
  readonly project: AdminProject;
  /** The rendered config (undefined while it loads) and how to load it again after a change. */
  readonly config: { readonly project?: { readonly requirePublishableClientKey?: boolean } } | null | undefined;
  readonly reloadConfig: () => Promise<void>;
  readonly origin: string;
  readonly domainsHref: string;
}

export function HostedPagesCard({ project, config, reloadConfig, origin, domainsHref }: HostedPagesProps) {
  const [confirm, setConfirm] = useState(false);
  const [setRequired, requiredState] = useAction(async (on: boolean) => {
    await project.updateConfig({ "project.requirePublishableClientKey": on });
    await reloadConfig();
  });
  const required = config?.project?.requirePublishableClientKey !== false;
  return (
    <Card className="vs-section" aria-labelledby="hosted-pages" data-testid="hosted-pages">
      <h2 id="hosted-pages">Hosted pages</h2>
      <p className="vs-muted" style={{ margin: 0 }}>
        Sign-in pages for this project that you can link to from your app, without building your own.
      </p>
      {HOSTED_PAGES.map(({ page, label }) => (
        <CopyField key={page} label={label} value={hostedPageUrl(origin, project.id, page)} />
      ))}
      {!config ? (
        <Skeleton height={48} />
      ) : (
        <>
          {required ? (
            <Alert kind="warning" title="These pages are off">
              They run without a publishable client key, and this project requires one. Turn the requirement off to use them.
            </Alert>
          ) : null}
          <Switch
            label="Require a publishable client key"
            description="Client requests (browsers, the hosted pages) must send one of the project's publishable keys."
            checked={required}
            disabled={requiredState.pending}
            onChange={(on) => (on ? void setRequired(true) : setConfirm(true))}
          />
        </>
      )}
      {hostedOriginTrusted(project.config, origin) ? null : (
        <Alert kind="info">
          E-mail links and redirects from these pages come back to {origin}. Add it to the <Link href={domainsHref}>trusted domains</Link>, or they are refused.
        </Alert>
      )}
      <ErrorAlert error={requiredState.error} />
      <Dialog open={confirm} onClose={() => setConfirm(false)} title="Stop requiring a publishable client key?">
        <p style={{ margin: 0 }}>
          Publishable client keys are public: they are part of your app's code in every visitor's browser, so requiring one
          keeps no one out. Without the requirement, browsers and the hosted pages can use this project without a key;
          what a client may do does not change, and your secret server keys stay secret.
        </p>
        <div className="vs-row">
          <Button variant="primary" onClick={() => { setConfirm(false); void setRequired(false); }}>
            Stop requiring the key
          </Button>
          <Button onClick={() => setConfirm(false)}>Cancel</Button>
        </div>
      </Dialog>
    </Card>
  );
}
