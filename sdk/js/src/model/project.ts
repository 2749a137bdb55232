/** JSON → SDK objects for the project and payment items: pure functions, no I/O. */
import type { Json } from "../json.ts";
import type { Item, Project } from "../types.ts";

/** The project of `GET /projects/current`. */
export function projectFrom(json: Json): Project {
  return {
    id: json.id,
    displayName: json.display_name,
    config: {
      signUpEnabled: json.config.sign_up_enabled,
      credentialEnabled: json.config.credential_enabled,
      magicLinkEnabled: json.config.magic_link_enabled,
      passkeyEnabled: json.config.passkey_enabled,
      clientTeamCreationEnabled: json.config.client_team_creation_enabled,
      clientUserDeletionEnabled: json.config.client_user_deletion_enabled,
      allowUserApiKeys: json.config.allow_user_api_keys,
      allowTeamApiKeys: json.config.allow_team_api_keys,
      oauthProviders: (json.config.enabled_oauth_providers ?? []).map((p: Json) => ({ id: p.id })),
    },
  };
}

/** An item of a customer (`GET /payments/items/...`); the quantity shown is never negative. */
export function itemFrom(json: Json): Item {
  return { displayName: json.display_name, quantity: json.quantity, nonNegativeQuantity: Math.max(0, json.quantity) };
}

/** Exactly one of userId, teamId, customCustomerId (spec §5). */
export function customerOf(o: Partial<{ userId: string; teamId: string; customCustomerId: string }>, method: string): ["user" | "team" | "custom", string] {
  const given = [o.userId !== undefined, o.teamId !== undefined, o.customCustomerId !== undefined].filter(Boolean).length;
  if (given !== 1) throw new Error(`${method} requires one of userId, teamId, or customCustomerId`);
  if (o.userId !== undefined) return ["user", o.userId];
  if (o.teamId !== undefined) return ["team", o.teamId];
  return ["custom", o.customCustomerId!];
}
