import { Type } from "typebox";
import { normalizeEmail } from "@vestibule/shared/emails";
import { knownError, statusError } from "@vestibule/shared/errors";
import { CallbackUrl, Email, Obj, OneOf, Optional, UserIdOrMe, Uuid } from "../../validation/index.ts";
import { contactChannelView } from "../../views/user.ts";
import { defineRoute } from "../route.ts";
import { clientSelf, resolveUserId } from "../helpers.ts";
import type { RequestAuth } from "../../auth/request-auth.ts";

const ANY = ["client", "server", "admin"] as const;
const Code45 = Type.String({ minLength: 45, maxLength: 45 });
const ChannelParams = Obj({ user_id: UserIdOrMe(), contact_channel_id: Uuid() });

/** Path user of a contact-channel route: clients only their own (plain 403 otherwise). */
function channelOwner(auth: RequestAuth, idOrMe: string): string {
  return auth.type === "client" ? clientSelf(auth, idOrMe, "manage contact channels") : resolveUserId(auth, idOrMe);
}

export const listContactChannelsRoute = defineRoute({
  method: "GET",
  path: "/contact-channels",
  summary: "List contact channels (clients: their own)",
  tags: ["Contact channels"],
  access: ANY,
  schemas: { query: Obj({ user_id: Optional(UserIdOrMe()) }) },
  async handler({ auth, query, clients }) {
    const userId = auth.type === "client" ? clientSelf(auth, query.user_id, "list contact channels") : query.user_id ? resolveUserId(auth, query.user_id) : "";
    const res = await clients.contactChannels.listContactChannels({ projectId: auth.projectId, userId });
    return { json: { items: res.contactChannels.map(contactChannelView), is_paginated: false } };
  },
});

export const createContactChannelRoute = defineRoute({
  method: "POST",
  path: "/contact-channels",
  summary: "Add a contact channel (e-mail) to a user",
  tags: ["Contact channels"],
  access: ANY,
  schemas: {
    body: Obj({
      user_id: UserIdOrMe(),
      value: Email(),
      type: OneOf(["email"]),
      used_for_auth: Type.Boolean(),
      is_primary: Optional(Type.Boolean()),
      is_verified: Optional(Type.Boolean()),
    }),
  },
  async handler({ auth, body, clients, req }) {
    if (auth.type === "client" && body.is_verified !== undefined) {
      throw knownError("SCHEMA_ERROR", { message: `Request validation failed on POST ${req.url.split("?")[0]}:\n  - body contains unknown properties: is_verified` });
    }
    const userId = channelOwner(auth, body.user_id);
    const res = await clients.contactChannels.createContactChannel({
      projectId: auth.projectId,
      userId,
      type: body.type,
      value: body.value,
      usedForAuth: body.used_for_auth,
      isPrimary: body.is_primary ?? false,
      isVerified: body.is_verified ?? false,
    });
    return { status: 201, json: contactChannelView(res.contactChannel!) };
  },
});

export const getContactChannelRoute = defineRoute({
  method: "GET",
  path: "/contact-channels/:user_id/:contact_channel_id",
  summary: "Read a contact channel",
  tags: ["Contact channels"],
  access: ANY,
  schemas: { params: ChannelParams },
  async handler({ auth, params, clients }) {
    const res = await clients.contactChannels.getContactChannel({
      projectId: auth.projectId,
      userId: channelOwner(auth, params.user_id),
      contactChannelId: params.contact_channel_id,
    });
    return { json: contactChannelView(res.contactChannel!) };
  },
});

export const patchContactChannelRoute = defineRoute({
  method: "PATCH",
  path: "/contact-channels/:user_id/:contact_channel_id",
  summary: "Update a contact channel",
  tags: ["Contact channels"],
  access: ANY,
  schemas: {
    params: ChannelParams,
    body: Obj({
      value: Optional(Email()),
      type: Optional(OneOf(["email"])),
      used_for_auth: Optional(Type.Boolean()),
      is_primary: Optional(Type.Boolean()),
      is_verified: Optional(Type.Boolean()),
    }),
  },
  async handler({ auth, params, body, clients, req }) {
    if (auth.type === "client" && body.is_verified !== undefined) {
      throw knownError("SCHEMA_ERROR", { message: `Request validation failed on PATCH ${req.url.split("?")[0]}:\n  - body contains unknown properties: is_verified` });
    }
    const res = await clients.contactChannels.updateContactChannel({
      projectId: auth.projectId,
      userId: channelOwner(auth, params.user_id),
      contactChannelId: params.contact_channel_id,
      value: body.value,
      usedForAuth: body.used_for_auth,
      isPrimary: body.is_primary,
      isVerified: body.is_verified,
    });
    return { json: contactChannelView(res.contactChannel!) };
  },
});

export const deleteContactChannelRoute = defineRoute({
  method: "DELETE",
  path: "/contact-channels/:user_id/:contact_channel_id",
  summary: "Delete a contact channel",
  tags: ["Contact channels"],
  access: ANY,
  schemas: { params: ChannelParams },
  async handler({ auth, params, clients }) {
    await clients.contactChannels.deleteContactChannel({
      projectId: auth.projectId,
      userId: channelOwner(auth, params.user_id),
      contactChannelId: params.contact_channel_id,
    });
    return { json: { success: true } };
  },
});

export const sendChannelVerificationRoute = defineRoute({
  method: "POST",
  path: "/contact-channels/:user_id/:contact_channel_id/send-verification-code",
  summary: "E-mail a verification link for a contact channel",
  tags: ["Contact channels"],
  access: ANY,
  schemas: { params: ChannelParams, body: Obj({ callback_url: CallbackUrl() }) },
  async handler({ auth, params, body, clients }) {
    await clients.verification.sendContactChannelVerificationCode({
      projectId: auth.projectId,
      userId: channelOwner(auth, params.user_id),
      contactChannelId: params.contact_channel_id,
      callbackUrl: body.callback_url,
    });
    return { json: { success: true } };
  },
});

/** Legacy: verifies the signed-in user's primary e-mail. */
export const sendLegacyVerificationRoute = defineRoute({
  method: "POST",
  path: "/contact-channels/send-verification-code",
  summary: "E-mail a verification link for the signed-in user's primary e-mail (legacy)",
  tags: ["Contact channels"],
  access: ANY,
  user: "optional",
  schemas: { body: Obj({ email: Email(), callback_url: CallbackUrl() }) },
  async handler({ auth, body, clients }) {
    // Signed out: the published backend's answer (issue 13), not a schema error.
    if (!auth.user) throw knownError("CANNOT_GET_OWN_USER_WITHOUT_USER");
    const user = auth.user.record;
    if (!user.primaryEmail) throw statusError(400, "User does not have a primary email");
    if (user.primaryEmail !== normalizeEmail(body.email)) {
      throw knownError("EMAIL_IS_NOT_PRIMARY_EMAIL", { email: body.email, primary_email: user.primaryEmail });
    }
    const { contactChannels } = await clients.contactChannels.listContactChannels({ projectId: auth.projectId, userId: user.id });
    const primary = contactChannels.find((c) => c.isPrimary && c.type === "email");
    if (!primary) throw statusError(400, "User does not have a primary email");
    await clients.verification.sendContactChannelVerificationCode({
      projectId: auth.projectId,
      userId: user.id,
      contactChannelId: primary.id,
      callbackUrl: body.callback_url,
    });
    return { json: { success: true } };
  },
});

export const checkVerificationCodeRoute = defineRoute({
  method: "POST",
  path: "/contact-channels/verify/check-code",
  summary: "Check an e-mail verification code without using it",
  tags: ["Contact channels"],
  access: ANY,
  schemas: { body: Obj({ code: Code45 }) },
  async handler({ auth, body, clients, clientIp }) {
    await clients.verification.checkContactChannelVerificationCode({ projectId: auth.projectId, code: body.code, client: { ip: clientIp } });
    return { json: { is_code_valid: true } };
  },
});

export const verifyContactChannelRoute = defineRoute({
  method: "POST",
  path: "/contact-channels/verify",
  summary: "Verify an e-mail address with the code from its link",
  tags: ["Contact channels"],
  access: ANY,
  schemas: { body: Obj({ code: Code45 }) },
  async handler({ auth, body, clients, clientIp, users }) {
    const { userId } = await clients.verification.verifyContactChannel({ projectId: auth.projectId, code: body.code, client: { ip: clientIp } });
    // The verified user need not be the caller (a link opened signed out): read-your-writes for them too.
    if (userId) users.invalidate(auth.projectId, userId);
    return { json: { success: true } };
  },
});
