import type { ServiceImpl } from "@connectrpc/connect";
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type RegistrationResponseJSON,
} from "@simplewebauthn/server";
import { PasskeyService, type Passkey } from "@vestibule/proto/auth/v1/passkey_service";
import type { User } from "@vestibule/proto/identity/v1/user";
import { uniqueViolation, withTransaction } from "@vestibule/shared/db";
import { knownError, statusError } from "@vestibule/shared/errors";
import { isUuid, newId } from "@vestibule/shared/ids";
import type { AuthSettings } from "../domain/settings.ts";
import type { AuthRuntime } from "../runtime.ts";
import { requireSecondFactor } from "../mfa/second-factor.ts";
import { passkeyStore, type PasskeyRow } from "./store/passkey-store.ts";
import {
  parseResponseJson,
  relyingPartyOf,
  RP_ID_PLACEHOLDER,
  SUPPORTED_ALGORITHMS,
  userHandleBytes,
  userHandleOf,
  weakKeyReason,
} from "./relying-party.ts";

/** How long a ceremony's code (and challenge) lives. */
export const PASSKEY_CHALLENGE_LIFETIME_MS = 5 * 60 * 1000;
/** What the browser is told to wait for the user. */
const CEREMONY_TIMEOUT_MS = 60_000;
const MAX_NAME_LENGTH = 100;

const registrationFailed = (message: string) => knownError("PASSKEY_REGISTRATION_FAILED", { message });
const authenticationFailed = (message: string) => knownError("PASSKEY_AUTHENTICATION_FAILED", { message });

function passkeyView(row: PasskeyRow): Passkey {
  return {
    $typeName: "vestibule.auth.v1.Passkey",
    id: row.id,
    name: row.name,
    credentialId: row.credential_id,
    transports: row.transports,
    createdAtMillis: BigInt(row.created_at.getTime()),
    lastUsedAtMillis: BigInt(row.last_used_at?.getTime() ?? 0),
  };
}

/**
 * Passkeys (WebAuthn) with @simplewebauthn/server: registration for a signed-in user and discoverable sign-in.
 *
 * Each ceremony gets a 45-character code from the shared verification-code store (single use, 5 minutes, bound to
 * the project and, for registration, the user) whose data holds the challenge; the options carry the relying-party
 * id placeholder. The relying party of a response is the origin its clientDataJSON reports, which must be a trusted
 * domain of the project (relying-party.ts); a credential remembers the relying-party id it was made for and signs in
 * only from that host. The signature counter is stored and must grow. The user's `passkey_auth_enabled` (identity)
 * is turned on by the first registration and off when the last passkey is removed; a user with it off cannot sign
 * in with a passkey, and the credentials enabled before it was turned off are removed (user-events.ts).
 */
export function createPasskeyService(rt: AuthRuntime): ServiceImpl<typeof PasskeyService> {
  const { ctx, identity, settings, sessions, codes } = rt;
  const { pool } = ctx;

  async function passkeySettings(projectId: string): Promise<AuthSettings> {
    const s = await settings.get(projectId);
    if (!s.passkeySignIn) throw knownError("PASSKEY_AUTHENTICATION_NOT_ENABLED");
    return s;
  }

  async function existingUser(projectId: string, userId: string): Promise<User> {
    const user = isUuid(userId) ? await sessions.getUser(projectId, userId) : undefined;
    if (!user) throw knownError("USER_NOT_FOUND");
    return user;
  }

  /** The user's passkeys; none while passkey sign-in is off for the user (those left are disabled). */
  async function activePasskeys(user: User): Promise<PasskeyRow[]> {
    return user.passkeyAuthEnabled ? passkeyStore.listForUser(pool, user.projectId, user.id) : [];
  }

  return {
    async initiatePasskeyRegistration(req) {
      const s = await passkeySettings(req.projectId);
      const user = await existingUser(req.projectId, req.userId);
      const existing = await activePasskeys(user);
      const name = user.primaryEmail ?? user.displayName ?? user.id;
      const options = await generateRegistrationOptions({
        rpName: s.displayName || "Vestibule",
        rpID: RP_ID_PLACEHOLDER,
        userName: name,
        userDisplayName: user.displayName ?? name,
        userID: userHandleBytes(user.id),
        timeout: CEREMONY_TIMEOUT_MS,
        attestationType: "none",
        excludeCredentials: existing.map((p) => ({ id: p.credential_id, transports: p.transports })),
        authenticatorSelection: { residentKey: "required", requireResidentKey: true, userVerification: "required" },
        supportedAlgorithmIDs: SUPPORTED_ALGORITHMS,
      });
      const code = await codes.create(pool, {
        projectId: req.projectId,
        purpose: "passkey_registration",
        userId: user.id,
        data: { challenge: options.challenge },
        lifetimeMs: PASSKEY_CHALLENGE_LIFETIME_MS,
      });
      return { optionsJson: JSON.stringify(options), code };
    },

    async registerPasskey(req) {
      const s = await passkeySettings(req.projectId);
      const row = await codes.check(req.projectId, "passkey_registration", req.code, req.client?.ip ?? "");
      if (!isUuid(req.userId) || row.user_id !== req.userId) throw registrationFailed("This registration was started by another user");
      const parsed = parseResponseJson(req.credentialJson, "registration");
      if (typeof parsed === "string") throw registrationFailed(parsed);
      const response = parsed as unknown as RegistrationResponseJSON;
      const rp = relyingPartyOf(response.response.clientDataJSON, s.redirectTrust);
      if (typeof rp === "string") throw registrationFailed(rp);
      let info;
      try {
        const verification = await verifyRegistrationResponse({
          response,
          expectedChallenge: String(row.data.challenge ?? ""),
          expectedOrigin: rp.origin,
          expectedRPID: rp.rpId,
          requireUserVerification: true,
          supportedAlgorithmIDs: SUPPORTED_ALGORITHMS,
        });
        if (!verification.verified) throw new Error("The registration response could not be verified");
        info = verification.registrationInfo;
      } catch (err) {
        throw registrationFailed((err as Error).message || "The registration response could not be verified");
      }
      const weak = weakKeyReason(info.credential.publicKey);
      if (weak) throw registrationFailed(weak);
      const user = await existingUser(req.projectId, req.userId);

      const passkey = await withTransaction(pool, async (tx) => {
        await codes.consume(tx, row);
        // Credentials left from before passkeys were turned off for the user stay disabled: they go now.
        if (!user.passkeyAuthEnabled) await passkeyStore.deleteForUser(tx, req.projectId, user.id);
        const count = await passkeyStore.countForUser(tx, req.projectId, user.id);
        let inserted: PasskeyRow;
        try {
          inserted = await passkeyStore.insert(tx, {
            id: newId(),
            projectId: req.projectId,
            userId: user.id,
            credentialId: info.credential.id,
            publicKey: info.credential.publicKey,
            counter: info.credential.counter,
            transports: response.response.transports ?? [],
            name: `Passkey ${count + 1}`,
            rpId: rp.rpId,
            origin: rp.origin,
            aaguid: info.aaguid,
            deviceType: info.credentialDeviceType,
            backedUp: info.credentialBackedUp,
            // Replaced below when identity's flag changes; an older user event cannot remove this credential.
            userVersion: Number(user.version),
          });
        } catch (err) {
          if (uniqueViolation(err) === "passkey_credentials_credential_unique") throw registrationFailed("This passkey is already registered");
          throw err;
        }
        if (!user.passkeyAuthEnabled) {
          const updated = await identity.users.updateUser({ projectId: req.projectId, userId: user.id, passkeyAuthEnabled: true });
          await passkeyStore.setUserVersion(tx, inserted.id, Number(updated.user?.version ?? 0));
        }
        return inserted;
      });
      return { userHandle: userHandleOf(user.id), passkey: passkeyView(passkey) };
    },

    async initiatePasskeyAuthentication(req) {
      await passkeySettings(req.projectId);
      const options = await generateAuthenticationOptions({
        rpID: RP_ID_PLACEHOLDER,
        timeout: CEREMONY_TIMEOUT_MS,
        userVerification: "required",
      });
      const code = await codes.create(pool, {
        projectId: req.projectId,
        purpose: "passkey_authentication",
        userId: null,
        data: { challenge: options.challenge },
        lifetimeMs: PASSKEY_CHALLENGE_LIFETIME_MS,
      });
      return { optionsJson: JSON.stringify(options), code };
    },

    async signInWithPasskey(req) {
      const s = await passkeySettings(req.projectId);
      const ip = req.client?.ip ?? "";
      const row = await codes.check(req.projectId, "passkey_authentication", req.code, ip);
      const parsed = parseResponseJson(req.authenticationResponseJson, "authentication");
      if (typeof parsed === "string") throw authenticationFailed(parsed);
      const response = parsed as unknown as AuthenticationResponseJSON;
      const credential = await passkeyStore.byCredentialId(pool, req.projectId, response.id);
      if (!credential) throw authenticationFailed("This passkey is not registered with this project");
      const rp = relyingPartyOf(response.response.clientDataJSON, s.redirectTrust);
      if (typeof rp === "string") throw authenticationFailed(rp);
      if (rp.rpId !== credential.rp_id) throw authenticationFailed(`This passkey was registered for ${credential.rp_id}, not ${rp.rpId}`);
      const handle = response.response.userHandle;
      if (handle && handle !== userHandleOf(credential.user_id)) throw authenticationFailed("The passkey's user handle does not match its user");
      let newCounter: number;
      try {
        const verification = await verifyAuthenticationResponse({
          response,
          expectedChallenge: String(row.data.challenge ?? ""),
          expectedOrigin: rp.origin,
          expectedRPID: rp.rpId,
          credential: {
            id: credential.credential_id,
            publicKey: new Uint8Array(credential.public_key),
            counter: Number(credential.counter),
            transports: credential.transports as never,
          },
          requireUserVerification: true,
        });
        if (!verification.verified) throw new Error("The authentication response could not be verified");
        newCounter = verification.authenticationInfo.newCounter;
      } catch (err) {
        throw authenticationFailed((err as Error).message || "The authentication response could not be verified");
      }
      const user = await sessions.getUser(req.projectId, credential.user_id);
      if (!user) throw authenticationFailed("This passkey is not registered with this project");
      if (!user.passkeyAuthEnabled) throw authenticationFailed("Passkey sign-in is turned off for this user");
      await withTransaction(pool, async (tx) => {
        await codes.consume(tx, row);
        if (!(await passkeyStore.recordUse(tx, credential.id, credential.counter, newCounter))) {
          throw authenticationFailed("The passkey's signature counter changed during the sign-in");
        }
      });
      await requireSecondFactor(rt, { projectId: req.projectId, userId: user.id, requiresTotpMfa: user.requiresTotpMfa });
      return { result: await sessions.signIn(s, user, { ip }) };
    },

    async listPasskeys(req) {
      const user = await existingUser(req.projectId, req.userId);
      return { passkeys: (await activePasskeys(user)).map(passkeyView) };
    },

    async updatePasskey(req) {
      const name = req.name.trim();
      if (name === "" || name.length > MAX_NAME_LENGTH) throw statusError(400, `A passkey name must have 1 to ${MAX_NAME_LENGTH} characters.`);
      const user = await existingUser(req.projectId, req.userId);
      const row = isUuid(req.passkeyId) && user.passkeyAuthEnabled ? await passkeyStore.rename(pool, req.projectId, user.id, req.passkeyId, name) : undefined;
      if (!row) throw statusError(404, "Passkey not found.");
      return { passkey: passkeyView(row) };
    },

    async deletePasskey(req) {
      const user = await existingUser(req.projectId, req.userId);
      const deleted = isUuid(req.passkeyId) && user.passkeyAuthEnabled ? await passkeyStore.delete(pool, req.projectId, user.id, req.passkeyId) : false;
      if (!deleted) throw statusError(404, "Passkey not found.");
      if ((await passkeyStore.countForUser(pool, req.projectId, user.id)) === 0) {
        await identity.users.updateUser({ projectId: req.projectId, userId: user.id, passkeyAuthEnabled: false });
      }
      return {};
    },
  };
}
