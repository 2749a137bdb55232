import type { ServiceImpl } from "@connectrpc/connect";
import { ContactChannelService } from "@vestibule/proto/identity/v1/contact_channel_service";
import { withTransaction, type PoolClient } from "@vestibule/shared/db";
import { knownError, statusError } from "@vestibule/shared/errors";
import { isUuid, newId } from "@vestibule/shared/ids";
import type { ServiceContext } from "@vestibule/shared/service";
import { normalizeEmail } from "./domain/users.ts";
import { contactChannelStore, type ContactChannelRow } from "./store/contact-channel-store.ts";
import { userStore } from "./store/user-store.ts";
import {
  CHANNEL_ALREADY_EXISTS,
  ensureAuthEmailFree,
  publishChannelChanged,
  publishUserUpdated,
  requireUser,
  toContactChannelMessage,
  translateChannelConflict,
} from "./users.ts";

const NOT_FOUND = "Contact channel not found.";
const NOT_FOUND_FOR_CHANGE = "Contact channel not found";

function channelType(type: string): "email" {
  if (type !== "email") throw statusError(400, `Contact channel type ${JSON.stringify(type)} is not supported; only "email" is.`);
  return type;
}

function channelValue(value: string): string {
  const v = normalizeEmail(value);
  if (!v) throw statusError(400, "value must not be empty.");
  return v;
}

export function createContactChannelService(ctx: ServiceContext): ServiceImpl<typeof ContactChannelService> {
  const { pool, outbox } = ctx;

  /**
   * Locks the user (every channel change of one user is serialised on the user row) and reads the channel; when
   * either does not exist, the 400 text Stack's update and delete answer ("Contact channel not found", issue 13;
   * reads answer 404 "Contact channel not found.").
   */
  async function lockChannel(tx: PoolClient, projectId: string, userId: string, channelId: string): Promise<ContactChannelRow> {
    if (!isUuid(userId) || !isUuid(channelId)) throw statusError(400, NOT_FOUND_FOR_CHANGE);
    const channel = (await userStore.lock(tx, projectId, userId)) ? await contactChannelStore.get(tx, projectId, userId, channelId) : undefined;
    if (!channel) throw statusError(400, NOT_FOUND_FOR_CHANGE);
    return channel;
  }

  /** Events of a channel change; the user changes as shown when its primary channel was or is involved. */
  async function publish(tx: PoolClient, changed: ContactChannelRow, opts: { deleted?: boolean; primaryAffected: boolean }): Promise<void> {
    await publishChannelChanged(tx, outbox, changed, opts.deleted);
    if (opts.primaryAffected) await publishUserUpdated(tx, outbox, changed.project_id, changed.user_id, { bumpVersion: true });
  }

  return {
    async listContactChannels(req) {
      if (req.userId && !isUuid(req.userId)) return { contactChannels: [] };
      const rows = await contactChannelStore.list(pool, req.projectId, req.userId || undefined);
      return { contactChannels: rows.map(toContactChannelMessage) };
    },

    async createContactChannel(req) {
      const { projectId, userId } = req;
      const type = channelType(req.type);
      const value = channelValue(req.value);
      try {
        const row = await withTransaction(pool, async (tx) => {
          await requireUser(tx, projectId, userId, { forUpdate: true, idFromBody: true });
          if (await contactChannelStore.findByUserValue(tx, userId, type, value)) throw statusError(400, CHANNEL_ALREADY_EXISTS);
          // An address someone else signs in with cannot be added to another user, for auth or not.
          await ensureAuthEmailFree(tx, projectId, value, userId, "channel");
          if (req.isPrimary) {
            const previous = await contactChannelStore.getPrimary(tx, userId, type);
            if (previous) {
              await contactChannelStore.demotePrimary(tx, userId, type);
              await publishChannelChanged(tx, outbox, { ...previous, is_primary: false });
            }
          }
          const channel: ContactChannelRow = {
            id: newId(),
            project_id: projectId,
            user_id: userId.toLowerCase(),
            type,
            value,
            is_verified: req.isVerified,
            is_primary: req.isPrimary,
            used_for_auth: req.usedForAuth,
          };
          await contactChannelStore.insert(tx, channel);
          await userStore.refreshSearchText(tx, channel.user_id);
          await publish(tx, channel, { primaryAffected: channel.is_primary });
          return channel;
        });
        return { contactChannel: toContactChannelMessage(row) };
      } catch (err) {
        return await translateChannelConflict(err, pool, projectId, value, "channel");
      }
    },

    async getContactChannel(req) {
      const row =
        isUuid(req.userId) && isUuid(req.contactChannelId)
          ? await contactChannelStore.get(pool, req.projectId, req.userId, req.contactChannelId)
          : undefined;
      if (!row) throw statusError(404, NOT_FOUND);
      return { contactChannel: toContactChannelMessage(row) };
    },

    async updateContactChannel(req) {
      const { projectId, userId } = req;
      const newValue = req.value !== undefined ? channelValue(req.value) : undefined;
      try {
        const row = await withTransaction(pool, async (tx) => {
          const existing = await lockChannel(tx, projectId, userId, req.contactChannelId);
          const value = newValue ?? existing.value;
          const valueChanged = value !== existing.value;
          if (valueChanged && (await contactChannelStore.findByUserValue(tx, existing.user_id, existing.type, value))) {
            throw statusError(400, CHANNEL_ALREADY_EXISTS);
          }
          const usedForAuth = req.usedForAuth ?? existing.used_for_auth;
          if (valueChanged || (usedForAuth && !existing.used_for_auth)) {
            await ensureAuthEmailFree(tx, projectId, value, existing.user_id, "channel");
          }
          if (req.isPrimary === true && !existing.is_primary) {
            const previous = await contactChannelStore.getPrimary(tx, existing.user_id, existing.type);
            if (previous) {
              await contactChannelStore.demotePrimary(tx, existing.user_id, existing.type);
              await publishChannelChanged(tx, outbox, { ...previous, is_primary: false });
            }
          }
          const next: ContactChannelRow = {
            ...existing,
            value,
            used_for_auth: usedForAuth,
            // A new address is unverified unless the caller says otherwise.
            is_verified: req.isVerified ?? (valueChanged ? false : existing.is_verified),
            is_primary: req.isPrimary ?? existing.is_primary,
          };
          await contactChannelStore.update(tx, next);
          if (valueChanged) await userStore.refreshSearchText(tx, next.user_id);
          await publish(tx, next, { primaryAffected: existing.is_primary || next.is_primary });
          return next;
        });
        return { contactChannel: toContactChannelMessage(row) };
      } catch (err) {
        return await translateChannelConflict(err, pool, projectId, newValue, "channel");
      }
    },

    async deleteContactChannel(req) {
      await withTransaction(pool, async (tx) => {
        const existing = await lockChannel(tx, req.projectId, req.userId, req.contactChannelId);
        await contactChannelStore.delete(tx, existing.id);
        await userStore.refreshSearchText(tx, existing.user_id);
        await publish(tx, existing, { deleted: true, primaryAffected: existing.is_primary });
      });
      return {};
    },

    async markContactChannelVerified(req) {
      const row = await withTransaction(pool, async (tx) => {
        const existing = await lockChannel(tx, req.projectId, req.userId, req.contactChannelId);
        if (existing.is_verified) throw knownError("EMAIL_ALREADY_VERIFIED");
        const next = { ...existing, is_verified: true };
        await contactChannelStore.update(tx, next);
        await publish(tx, next, { primaryAffected: next.is_primary });
        return next;
      });
      return { contactChannel: toContactChannelMessage(row) };
    },
  };
}
