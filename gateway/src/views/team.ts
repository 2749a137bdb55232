import type { Team, TeamInvitation, TeamMember } from "@vestibule/proto/teams_permissions/v1/team";
import type { User } from "@vestibule/proto/identity/v1/user";

import { jsonOrNull as json, serverTeamView } from "@vestibule/shared/views";

export { serverTeamView };

/** The team as a client sees it (endpoints.md §0: no created_at_millis, no server metadata). */
export function clientTeamView(t: Team): Record<string, unknown> {
  return {
    id: t.id,
    display_name: t.displayName,
    profile_image_url: t.profileImageUrl ?? null,
    client_metadata: json(t.clientMetadataJson),
    client_read_only_metadata: json(t.clientReadOnlyMetadataJson),
  };
}

export function teamView(t: Team, type: "client" | "server" | "admin"): Record<string, unknown> {
  return type === "client" ? clientTeamView(t) : serverTeamView(t);
}

/**
 * A member profile (client shape). The profile's own name and image, else the user's (as the reference shows them);
 * `user` is the member's user record when known.
 */
export function memberProfileView(m: TeamMember, user: User | undefined): Record<string, unknown> {
  return {
    team_id: m.teamId,
    user_id: m.userId,
    display_name: m.displayName ?? user?.displayName ?? null,
    profile_image_url: m.profileImageUrl ?? user?.profileImageUrl ?? null,
  };
}

export function invitationView(i: TeamInvitation): Record<string, unknown> {
  const view: Record<string, unknown> = { id: i.id, team_id: i.teamId, expires_at_millis: Number(i.expiresAtMillis), recipient_email: i.recipientEmail };
  // Listed by recipient (the current SDK's `user_id` listing): the team's name too.
  if (i.teamDisplayName) view.team_display_name = i.teamDisplayName;
  return view;
}
