import { Code, ConnectError, type ServiceImpl } from "@connectrpc/connect";
import { VerificationService } from "@vestibule/proto/auth/v1/verification_service";
import type { ContactChannel } from "@vestibule/proto/identity/v1/user";
import { withTransaction } from "@vestibule/shared/db";
import { knownError } from "@vestibule/shared/errors";
import { isUuid } from "@vestibule/shared/ids";
import { linkWithCode } from "./domain/codes.ts";
import { verificationEmail } from "../domain/emails.ts";
import { isRedirectUrlTrusted } from "../domain/redirect.ts";
import { isPeerError } from "../peers.ts";
import type { AuthRuntime } from "../runtime.ts";
import { claimsStore } from "../sessions/store/claims-store.ts";
import type { CodeRow } from "./store/code-store.ts";

/**
 * E-mail verification of contact channels with one-time codes (link = callback_url?code=<45 chars>). Codes made at
 * password sign-up carry only the user and the address; the channel is then found by its value.
 */
export function createVerificationService(rt: AuthRuntime): ServiceImpl<typeof VerificationService> {
  const { ctx, identity, settings, codes, mailer } = rt;

  /** The channel a code verifies, if it still exists with the address the code was sent to. */
  async function channelOf(projectId: string, row: CodeRow): Promise<ContactChannel | undefined> {
    const userId = typeof row.data.user_id === "string" ? row.data.user_id : row.user_id;
    const email = typeof row.data.email === "string" ? row.data.email : undefined;
    const channelId = typeof row.data.contact_channel_id === "string" ? row.data.contact_channel_id : undefined;
    if (!userId || !email) return undefined;
    if (channelId) {
      try {
        const { contactChannel } = await identity.contactChannels.getContactChannel({ projectId, userId, contactChannelId: channelId });
        return contactChannel?.value === email ? contactChannel : undefined;
      } catch (err) {
        // The channel or its user is gone.
        if (ConnectError.from(err).code === Code.NotFound) return undefined;
        throw err;
      }
    }
    try {
      const { contactChannels } = await identity.contactChannels.listContactChannels({ projectId, userId });
      return contactChannels.find((c) => c.type === "email" && c.value === email);
    } catch (err) {
      if (isPeerError(err, "USER_NOT_FOUND")) return undefined;
      throw err;
    }
  }

  return {
    async sendContactChannelVerificationCode(req) {
      const s = await settings.get(req.projectId);
      if (!isRedirectUrlTrusted(req.callbackUrl, s.redirectTrust)) throw knownError("REDIRECT_URL_NOT_WHITELISTED");
      const { contactChannel } = await identity.contactChannels.getContactChannel({
        projectId: req.projectId,
        userId: req.userId,
        contactChannelId: req.contactChannelId,
      });
      const channel = contactChannel!;
      if (channel.isVerified) throw knownError("EMAIL_ALREADY_VERIFIED");
      await withTransaction(ctx.pool, async (tx) => {
        const code = await codes.create(tx, {
          projectId: req.projectId,
          purpose: "contact_channel_verification",
          userId: isUuid(channel.userId) ? channel.userId : null,
          data: { user_id: channel.userId, contact_channel_id: channel.id, email: channel.value },
        });
        await mailer.request(tx, {
          projectId: req.projectId,
          to: channel.value,
          userId: channel.userId,
          content: verificationEmail(s.displayName, linkWithCode(req.callbackUrl, code)),
        });
      });
      return {};
    },

    async checkContactChannelVerificationCode(req) {
      await codes.check(req.projectId, "contact_channel_verification", req.code, req.client?.ip ?? "");
      return {};
    },

    async verifyContactChannel(req) {
      const row = await codes.check(req.projectId, "contact_channel_verification", req.code, req.client?.ip ?? "");
      const channel = await channelOf(req.projectId, row);
      // The address changed or the channel is gone since the code was sent: the code no longer stands for anything.
      if (!channel) throw knownError("VERIFICATION_CODE_NOT_FOUND");
      if (!channel.isVerified) {
        try {
          await identity.contactChannels.markContactChannelVerified({ projectId: req.projectId, userId: channel.userId, contactChannelId: channel.id });
        } catch (err) {
          // Verified in the meantime (another code, an admin): the goal is reached.
          if (!isPeerError(err, "EMAIL_ALREADY_VERIFIED")) throw err;
        }
      }
      await codes.consume(ctx.pool, row);
      // The next access token must say email_verified even if identity's event is still on its way.
      await claimsStore.expire(ctx.pool, req.projectId, channel.userId);
      return { userId: channel.userId };
    },
  };
}
