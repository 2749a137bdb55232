import type { Client } from "@connectrpc/connect";
import { NotFoundError } from "@vestibule/proto/identity/v1/project_service";
import { TeamMembershipService } from "@vestibule/proto/teams_permissions/v1/team_membership_service";
import { AccessType } from "@vestibule/proto/teams_permissions/v1/team";
import { createServiceClient } from "@vestibule/shared/rpc";
import { peerUrl } from "@vestibule/shared/service";
import type { EmailRuntime } from "../runtime.ts";
import type { EndpointRow } from "./store.ts";

/** The dashboard's own project: its users own the other projects (identity bootstrap). */
const INTERNAL_PROJECT = "internal";

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * Tells a project's owners (the members of its owner team in the `internal` project) that one of its webhook
 * endpoints was disabled, through the service's own e-mail request path (EmailRequests.record: rendered, queued and
 * delivered like every other transactional e-mail of the internal project).
 */
export function ownerNotifier(rt: EmailRuntime): (endpoint: EndpointRow) => Promise<void> {
  let members: Client<typeof TeamMembershipService> | undefined;
  return async (endpoint) => {
    const { project } = await rt.identity.projects.getProject({ projectId: endpoint.project_id, notFoundError: NotFoundError.PROJECT_NOT_FOUND });
    if (!project?.ownerTeamId) return;
    members ??= createServiceClient(TeamMembershipService, { baseUrl: peerUrl("teams_permissions", rt.ctx.env), caller: "email", secret: rt.ctx.config.serviceSecret });
    const { members: owners } = await members.listTeamMembers({
      projectId: INTERNAL_PROJECT,
      caller: { accessType: AccessType.SERVER },
      teamId: project.ownerTeamId,
    });
    const subject = `Webhook endpoint disabled in ${project.displayName}`;
    const text = `The webhook endpoint ${endpoint.url} of the project ${project.displayName} was disabled: ${endpoint.disabled_reason}\nFix the endpoint, then enable it again in the dashboard's Webhooks page; messages that were not delivered can be replayed from there.`;
    const html = `<p>The webhook endpoint <code>${escapeHtml(endpoint.url)}</code> of the project <b>${escapeHtml(project.displayName)}</b> was disabled: ${escapeHtml(endpoint.disabled_reason)}</p><p>Fix the endpoint, then enable it again in the dashboard's Webhooks page; messages that were not delivered can be replayed from there.</p>`;
    for (const owner of owners) {
      const { user } = await rt.identity.users.getUser({ projectId: INTERNAL_PROJECT, userId: owner.userId });
      if (!user?.primaryEmail) continue;
      await rt.requests.record(rt.ctx.pool, {
        projectId: INTERNAL_PROJECT,
        to: user.primaryEmail,
        subject,
        html,
        text,
        notificationCategory: "Transactional",
        template: "",
        userId: user.id,
        variablesJson: "",
      });
    }
  };
}
