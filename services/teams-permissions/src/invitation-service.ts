import type { ServiceImpl } from "@connectrpc/connect";
import { TeamInvitationService } from "@vestibule/proto/teams_permissions/v1/invitation_service";
import { withTransaction } from "@vestibule/shared/db";
import { normalizeEmail } from "@vestibule/shared/emails";
import { knownError } from "@vestibule/shared/errors";
import { isUuid, newId } from "@vestibule/shared/ids";
import { hashSecret, randomCode } from "@vestibule/shared/secrets";
import { isRedirectUrlTrusted } from "@vestibule/shared/urls";
import { clientUser, isClient, requireMembership, requireTeamPermission } from "./access.ts";
import { checkDashboardAdmins, dashboardAdminsLimit } from "./dashboard-admins.ts";
import { invitationEmail } from "./domain/emails.ts";
import { codeProblem, codeTail, INVITATION_LIFETIME_MS, linkWithCode, normalizeCode } from "./domain/invitation-codes.ts";
import type { TeamsRuntime } from "./runtime.ts";
import { verifiedEmailsOf } from "./peers.ts";
import { addMember, invitationMessage } from "./team-ops.ts";
import { invitationStore, type InvitationRow } from "./store/invitation-store.ts";
import { teamStore } from "./store/team-store.ts";

/**
 * Team invitations (endpoints.md §4) with their one-time codes (domain/invitation-codes.ts). The e-mail is asked for
 * through the outbox in the transaction that stores the invitation (teams_permissions.email.requested.v1, its link
 * sealed: mailer.ts), so it exists if and only if its code does. Accepting uses the code and adds the membership in one
 * transaction: a code works once, and never without its membership. Codes are secrets: they are never logged.
 */
export function createTeamInvitationService(rt: TeamsRuntime): ServiceImpl<typeof TeamInvitationService> {
  const { ctx, identity, settings } = rt;
  const { pool } = ctx;

  /**
   * Finds the invitation of a code and checks it (not found, expired, used, too many attempts). Every attempt counts
   * against all codes sharing the last 39 characters, committed even when the check then fails.
   *
   * Guessing is also limited like the auth service's code checks (rt.limiter, shared by the replicas): an unknown
   * code counts as a failure of the client IP and of the account, which is the signed-in user when there is one
   * (details, accept) and otherwise the code's last 39 characters (check-code). Each guess is counted before it is
   * looked up (`rt.limiter.guard`), so guesses sent at once are looked up no more often than one after another; a
   * blocked IP or account gets the 429 with Retry-After before the code is even looked up. A valid code does not
   * reset the account's failures (nor count as one): one real invitation in hand must not buy more guesses; they are
   * forgotten after the reset period instead.
   */
  async function checkCode(projectId: string, input: string, ip: string, userId?: string): Promise<InvitationRow> {
    const code = normalizeCode(input);
    const account = userId || (code ? codeTail(code) : undefined);
    return rt.limiter.guard({ method: "code:team_invitation", projectId, account, ip: ip || undefined }, async (attempt) => {
      if (!code) throw knownError("VERIFICATION_CODE_NOT_FOUND");
      await invitationStore.countAttempt(pool, projectId, hashSecret(codeTail(code)));
      const row = await invitationStore.byHash(pool, projectId, hashSecret(code));
      if (!row) throw knownError("VERIFICATION_CODE_NOT_FOUND");
      attempt.release();
      const problem = codeProblem({ expiresAt: row.expires_at, usedAt: row.used_at, attempts: row.attempts }, new Date());
      if (problem) throw problem;
      return row;
    });
  }

  async function teamOf(projectId: string, row: InvitationRow) {
    const team = await teamStore.get(pool, projectId, row.team_id);
    // The team went away: its invitations are gone with it (cascade), so this only happens in a race.
    if (!team) throw knownError("VERIFICATION_CODE_NOT_FOUND");
    return team;
  }

  return {
    async createTeamInvitation(req) {
      const { projectId, teamId } = req;
      const s = await settings.get(projectId, Number(req.caller?.knownConfigVersion ?? 0));
      let invitedBy: string | null = null;
      if (isClient(req.caller)) {
        invitedBy = clientUser(req.caller, () => knownError("USER_AUTHENTICATION_REQUIRED"));
        await requireTeamPermission(identity, pool, s, projectId, teamId, invitedBy, "$invite_members");
      } else if (req.caller?.userId && isUuid(req.caller.userId)) {
        invitedBy = req.caller.userId;
      }
      const team = isUuid(teamId) ? await teamStore.get(pool, projectId, teamId) : undefined;
      if (!team) throw knownError("TEAM_NOT_FOUND", { team_id: teamId });
      if (!isRedirectUrlTrusted(req.callbackUrl, { allowLocalhost: s.redirectTrust.allowLocalhost, trustedDomains: s.redirectTrust.trustedDomains.map((baseUrl) => ({ baseUrl })) })) {
        throw knownError("REDIRECT_URL_NOT_WHITELISTED");
      }
      const email = normalizeEmail(req.email);
      const row = await withTransaction(pool, async (tx) => {
        const code = randomCode(45);
        const inserted = await invitationStore.insert(tx, {
          id: newId(),
          projectId,
          teamId: team.id,
          email,
          codeHash: hashSecret(code),
          tailHash: hashSecret(codeTail(code)),
          invitedBy,
          lifetimeMs: INVITATION_LIFETIME_MS,
        });
        const mail = invitationEmail({ teamDisplayName: team.display_name, projectDisplayName: s.displayName, link: linkWithCode(req.callbackUrl, code) });
        await rt.mailer.request(tx, {
          projectId,
          to: email,
          subject: mail.subject,
          html: mail.html,
          text: mail.text,
          notificationCategory: "Transactional",
          template: mail.template,
          userId: "",
          variablesJson: JSON.stringify(mail.variables),
        });
        return inserted;
      });
      ctx.log.info({ project_id: projectId, team_id: team.id, invitation_id: row.id }, "team invitation sent");
      return { invitation: invitationMessage(row) };
    },

    async listTeamInvitations(req) {
      const { projectId, teamId } = req;
      if (!teamId && req.userId) {
        // The invitations addressed to a user (any of their verified e-mails); a client only asks for itself.
        if (isClient(req.caller)) {
          const me = clientUser(req.caller, () => knownError("CANNOT_GET_OWN_USER_WITHOUT_USER"));
          if (req.userId !== me) throw knownError("CANNOT_GET_OWN_USER_WITHOUT_USER");
        }
        if (!isUuid(req.userId)) throw knownError("USER_NOT_FOUND");
        const emails = await verifiedEmailsOf(identity, projectId, req.userId);
        return { invitations: (await invitationStore.listPendingFor(pool, projectId, [...emails])).map(invitationMessage) };
      }
      if (isClient(req.caller)) {
        const me = clientUser(req.caller, () => knownError("CANNOT_GET_OWN_USER_WITHOUT_USER"));
        const s = await settings.get(projectId, Number(req.caller?.knownConfigVersion ?? 0));
        await requireMembership(identity, pool, projectId, teamId, me);
        for (const permission of ["$read_members", "$invite_members"]) {
          await requireTeamPermission(identity, pool, s, projectId, teamId, me, permission);
        }
      } else if (!(isUuid(teamId) && (await teamStore.get(pool, projectId, teamId)))) {
        throw knownError("TEAM_NOT_FOUND", { team_id: teamId });
      }
      return { invitations: (await invitationStore.listPending(pool, projectId, teamId)).map(invitationMessage) };
    },

    async deleteTeamInvitation(req) {
      const { projectId, teamId } = req;
      if (isClient(req.caller)) {
        const me = clientUser(req.caller, () => knownError("CANNOT_GET_OWN_USER_WITHOUT_USER"));
        const s = await settings.get(projectId, Number(req.caller?.knownConfigVersion ?? 0));
        await requireTeamPermission(identity, pool, s, projectId, teamId, me, "$remove_members");
      } else if (!(isUuid(teamId) && (await teamStore.get(pool, projectId, teamId)))) {
        throw knownError("TEAM_NOT_FOUND", { team_id: teamId });
      }
      if (!isUuid(req.invitationId) || !(await invitationStore.delete(pool, projectId, teamId, req.invitationId))) {
        throw knownError("VERIFICATION_CODE_NOT_FOUND");
      }
      return {};
    },

    async checkTeamInvitationCode(req) {
      await checkCode(req.projectId, req.code, req.clientIp);
      return {};
    },

    async getTeamInvitationDetails(req) {
      const userId = clientUser(req.caller, () => knownError("USER_AUTHENTICATION_REQUIRED"));
      const row = await checkCode(req.projectId, req.code, req.clientIp, userId);
      const team = await teamOf(req.projectId, row);
      return { teamId: team.id, teamDisplayName: team.display_name };
    },

    async acceptTeamInvitationById(req) {
      const { projectId, userId } = req;
      if (isClient(req.caller)) {
        const me = clientUser(req.caller, () => knownError("CANNOT_GET_OWN_USER_WITHOUT_USER"));
        if (userId !== me) throw knownError("CANNOT_GET_OWN_USER_WITHOUT_USER");
      }
      if (!isUuid(userId)) throw knownError("USER_NOT_FOUND");
      const pending = (row: InvitationRow | undefined): row is InvitationRow => !!row && !row.used_at && row.expires_at.getTime() > Date.now();
      const found = isUuid(req.invitationId) ? await invitationStore.byId(pool, projectId, req.invitationId) : undefined;
      if (!pending(found)) throw knownError("VERIFICATION_CODE_NOT_FOUND");
      const emails = await verifiedEmailsOf(identity, projectId, userId);
      if (!emails.has(found.recipient_email)) throw knownError("TEAM_INVITATION_EMAIL_MISMATCH");
      const s = await settings.get(projectId, Number(req.caller?.knownConfigVersion ?? 0));
      const limit = await dashboardAdminsLimit(rt.billingItems, projectId, found.team_id);
      const joined = await withTransaction(pool, async (tx) => {
        // Locked and checked again: of two concurrent accepts only one passes.
        const row = await invitationStore.byId(tx, projectId, found.id, true);
        if (!pending(row)) throw knownError("VERIFICATION_CODE_NOT_FOUND");
        const team = await teamStore.get(tx, projectId, row.team_id, true);
        if (!team) throw knownError("VERIFICATION_CODE_NOT_FOUND");
        await checkDashboardAdmins(tx, limit, { projectId, teamId: team.id, userId });
        const added = await addMember(rt, tx, s, { projectId, teamId: team.id, userId, kind: "member" });
        if (!(await invitationStore.markUsed(tx, row.id, userId))) throw knownError("VERIFICATION_CODE_NOT_FOUND");
        return added !== undefined;
      });
      return { teamId: found.team_id, joined };
    },

    async acceptTeamInvitation(req) {
      const { projectId } = req;
      const userId = clientUser(req.caller, () => knownError("USER_AUTHENTICATION_REQUIRED"));
      const checked = await checkCode(projectId, req.code, req.clientIp, userId);
      const s = await settings.get(projectId, Number(req.caller?.knownConfigVersion ?? 0));
      const limit = await dashboardAdminsLimit(rt.billingItems, projectId, checked.team_id);
      const joined = await withTransaction(pool, async (tx) => {
        // Locked and checked again: of two concurrent accepts only one passes.
        const row = await invitationStore.byHash(tx, projectId, hashSecret(normalizeCode(req.code)!), true);
        if (!row || row.id !== checked.id) throw knownError("VERIFICATION_CODE_NOT_FOUND");
        if (row.used_at) throw knownError("VERIFICATION_CODE_ALREADY_USED");
        const team = await teamStore.get(tx, projectId, row.team_id, true);
        if (!team) throw knownError("VERIFICATION_CODE_NOT_FOUND");
        // The internal project's dashboard admins limit (team row locked above: concurrent accepts count each other).
        await checkDashboardAdmins(tx, limit, { projectId, teamId: team.id, userId });
        const added = await addMember(rt, tx, s, { projectId, teamId: team.id, userId, kind: "member" });
        if (!(await invitationStore.markUsed(tx, row.id, userId))) throw knownError("VERIFICATION_CODE_ALREADY_USED");
        return added !== undefined;
      });
      return { teamId: checked.team_id, joined };
    },
  };
}
