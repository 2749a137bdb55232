import { Type } from "typebox";
import type { Passkey } from "@vestibule/proto/auth/v1/passkey_service";
import { FreeformObj, Obj, Optional, UserIdOrMe, Uuid } from "../../validation/index.ts";
import { defineRoute } from "../route.ts";
import { clientSelf, signInBody } from "../helpers.ts";

const ANY = ["client", "server", "admin"] as const;
const Code45 = Type.String({ minLength: 45, maxLength: 45 });
/** The browser's RegistrationResponseJSON / AuthenticationResponseJSON; the auth service checks it (bad ones → *_FAILED). */
const WebAuthnResponse = Type.Unknown();

function passkeyView(p: Passkey): Record<string, unknown> {
  return {
    id: p.id,
    name: p.name,
    credential_id: p.credentialId,
    transports: p.transports,
    created_at_millis: Number(p.createdAtMillis),
    last_used_at_millis: p.lastUsedAtMillis ? Number(p.lastUsedAtMillis) : null,
  };
}

export const initiatePasskeyRegistrationRoute = defineRoute({
  method: "POST",
  path: "/auth/passkey/initiate-passkey-registration",
  summary: "Creation options (relying-party id placeholder) and a code for registering a passkey of the signed-in user",
  tags: ["Passkey"],
  access: ANY,
  user: "schema",
  schemas: { body: FreeformObj({}) },
  async handler({ auth, clients }) {
    const res = await clients.passkeys.initiatePasskeyRegistration({ projectId: auth.projectId, userId: auth.user!.id });
    return { json: { options_json: JSON.parse(res.optionsJson) as unknown, code: res.code } };
  },
});

export const registerPasskeyRoute = defineRoute({
  method: "POST",
  path: "/auth/passkey/register",
  summary: "Register a passkey of the signed-in user (the browser's RegistrationResponseJSON)",
  tags: ["Passkey"],
  access: ANY,
  user: "schema",
  schemas: { body: Obj({ credential: WebAuthnResponse, code: Code45 }) },
  async handler({ auth, body, clients, clientIp, req, users }) {
    const res = await clients.passkeys.registerPasskey({
      projectId: auth.projectId,
      userId: auth.user!.id,
      credentialJson: JSON.stringify(body.credential ?? null),
      code: body.code,
      client: { ip: clientIp, userAgent: req.headers["user-agent"] ?? "" },
    });
    users.invalidate(auth.projectId, auth.user!.id);
    return { json: { user_handle: res.userHandle } };
  },
});

export const initiatePasskeyAuthenticationRoute = defineRoute({
  method: "POST",
  path: "/auth/passkey/initiate-passkey-authentication",
  summary: "Request options (relying-party id placeholder, discoverable credentials) and a code for a passkey sign-in",
  tags: ["Passkey"],
  access: ANY,
  schemas: { body: FreeformObj({}) },
  async handler({ auth, clients }) {
    const res = await clients.passkeys.initiatePasskeyAuthentication({ projectId: auth.projectId });
    return { json: { options_json: JSON.parse(res.optionsJson) as unknown, code: res.code } };
  },
});

export const passkeySignInRoute = defineRoute({
  method: "POST",
  path: "/auth/passkey/sign-in",
  summary: "Sign in with a passkey (the browser's AuthenticationResponseJSON)",
  tags: ["Passkey"],
  access: ANY,
  schemas: { body: Obj({ authentication_response: WebAuthnResponse, code: Code45 }) },
  async handler({ body, auth, clients, clientIp, req }) {
    const { result } = await clients.passkeys.signInWithPasskey({
      projectId: auth.projectId,
      authenticationResponseJson: JSON.stringify(body.authentication_response ?? null),
      code: body.code,
      client: { ip: clientIp, userAgent: req.headers["user-agent"] ?? "" },
    });
    return { json: signInBody(result, true) };
  },
});

/** Vestibule's own: the passkeys of a user (account settings, dashboard). Clients only for themselves. */
export const listPasskeysRoute = defineRoute({
  method: "GET",
  path: "/auth/passkeys",
  summary: "List a user's passkeys (name, created, last used), oldest first",
  tags: ["Passkey"],
  access: ANY,
  schemas: { query: Obj({ user_id: UserIdOrMe() }) },
  async handler({ auth, query, clients }) {
    const userId = clientSelf(auth, query.user_id, "list passkeys");
    const { passkeys } = await clients.passkeys.listPasskeys({ projectId: auth.projectId, userId });
    return { json: { items: passkeys.map(passkeyView), is_paginated: false } };
  },
});

export const updatePasskeyRoute = defineRoute({
  method: "PATCH",
  path: "/auth/passkeys/:passkey_id",
  summary: "Rename one of a user's passkeys",
  tags: ["Passkey"],
  access: ANY,
  schemas: {
    params: Obj({ passkey_id: Uuid() }),
    query: Obj({ user_id: Optional(UserIdOrMe()) }),
    body: Obj({ name: Type.String({ minLength: 1, maxLength: 100 }) }),
  },
  async handler({ auth, params, query, body, clients }) {
    const userId = clientSelf(auth, query.user_id ?? "me", "update passkeys");
    const { passkey } = await clients.passkeys.updatePasskey({ projectId: auth.projectId, userId, passkeyId: params.passkey_id, name: body.name });
    return { json: passkeyView(passkey!) };
  },
});

export const deletePasskeyRoute = defineRoute({
  method: "DELETE",
  path: "/auth/passkeys/:passkey_id",
  summary: "Remove one of a user's passkeys (the last one turns passkey sign-in off for the user)",
  tags: ["Passkey"],
  access: ANY,
  schemas: { params: Obj({ passkey_id: Uuid() }), query: Obj({ user_id: Optional(UserIdOrMe()) }) },
  async handler({ auth, params, query, clients, users }) {
    const userId = clientSelf(auth, query.user_id ?? "me", "delete passkeys");
    await clients.passkeys.deletePasskey({ projectId: auth.projectId, userId, passkeyId: params.passkey_id });
    users.invalidate(auth.projectId, userId);
    return { json: { success: true } };
  },
});

export const passkeyRoutes = [
  initiatePasskeyRegistrationRoute,
  registerPasskeyRoute,
  initiatePasskeyAuthenticationRoute,
  passkeySignInRoute,
  listPasskeysRoute,
  updatePasskeyRoute,
  deletePasskeyRoute,
] as const;
