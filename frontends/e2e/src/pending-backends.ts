/**
 * THE ONE PLACE that says which end-to-end steps wait for which backend (built on other branches, merged by the lead).
 * Each probe asks the running platform whether the backend is there; a step whose backend is missing is skipped with
 * this reason, so nothing is silently lost: the skip and its reason show in every run until the branch is merged.
 *
 * - "email" (branch `email`): e-mail themes, templates and drafts (/internal/email-*), the sent log
 *   (/internal/emails), one-time-code sign-in (/auth/otp/*) and notification preferences. Needed by: sign-in with an
 *   e-mail code on the hosted page, the notification settings tab, and the dashboard's e-mail area (theme, template,
 *   draft with preview, sent log).
 *
 * Teams, permissions and project ownership (branch `teams`) are merged: their steps always run.
 */
export type Backend = "email";

export const PENDING_REASON: Record<Backend, string> = {
  email: "needs the e-mail service's templates, themes, drafts, sent log and one-time-code sign-in from the email branch",
};

export interface ProbeTarget {
  readonly gatewayUrl: string;
  readonly demo: { project_id: string; super_secret_admin_key: string };
}

export async function backendAvailable(backend: Backend, t: ProbeTarget): Promise<boolean> {
  switch (backend) {
    case "email": {
      const res = await fetch(`${t.gatewayUrl}/api/v1/internal/email-themes`, {
        headers: { "x-stack-project-id": t.demo.project_id, "x-stack-access-type": "admin", "x-stack-super-secret-admin-key": t.demo.super_secret_admin_key },
      });
      await res.arrayBuffer();
      return res.status === 200;
    }
  }
}
