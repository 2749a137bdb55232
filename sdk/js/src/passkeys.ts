/**
 * WebAuthn ceremonies for passkeys, on the browser's own JSON helpers (`PublicKeyCredential.parse*OptionsFromJSON`
 * and `credential.toJSON()`). Failures become `PASSKEY_WEBAUTHN_ERROR` with the ceremony code of the failure.
 */
import { KnownErrors } from "@vestibule/sdk-core";
import { webAuthn } from "./browser.ts";

export const WEBAUTHN_UNSUPPORTED_MESSAGE = "WebAuthn is not supported in this browser";
export const PASSKEY_INITIATION_FAILED_MESSAGE = "Failed to get initiation options for passkey registration";
export const PASSKEY_REGISTRATION_UNKNOWN_MESSAGE = "Failed to start passkey registration due to unknown error";

export type WebAuthnCeremonyCode =
  | "ERROR_CEREMONY_ABORTED"
  | "ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED"
  | "ERROR_INVALID_DOMAIN"
  | "ERROR_INVALID_RP_ID"
  | "ERROR_INVALID_USER_ID_LENGTH"
  | "ERROR_AUTHENTICATOR_GENERAL_ERROR"
  | "ERROR_AUTHENTICATOR_MISSING_RESIDENT_KEY_SUPPORT"
  | "ERROR_PASSTHROUGH_SEE_CAUSE_PROPERTY";

/** The placeholder the server puts in place of the relying-party id; replaced with the page's host name. */
export const RP_ID_PLACEHOLDER = "THIS_VALUE_WILL_BE_REPLACED.example.com";

interface PublicKeyCredentialStatic {
  parseCreationOptionsFromJSON?(json: unknown): PublicKeyCredentialCreationOptions;
  parseRequestOptionsFromJSON?(json: unknown): PublicKeyCredentialRequestOptions;
}

function staticApi(): PublicKeyCredentialStatic | null {
  return ((globalThis as { PublicKeyCredential?: PublicKeyCredentialStatic }).PublicKeyCredential ?? null);
}

export function isLocalhostOrDomain(hostname: string): boolean {
  return hostname === "localhost" || /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i.test(hostname);
}

/** Maps a DOMException of a WebAuthn call to its ceremony code (mirrors the browser failure reasons). */
export function ceremonyCode(err: unknown, ceremony: "registration" | "authentication"): WebAuthnCeremonyCode {
  const name = (err as { name?: string } | null)?.name;
  if (name === "AbortError" || name === "NotAllowedError") return "ERROR_CEREMONY_ABORTED";
  if (name === "InvalidStateError" && ceremony === "registration") return "ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED";
  if (name === "SecurityError") return "ERROR_INVALID_DOMAIN";
  if (name === "ConstraintError") return "ERROR_AUTHENTICATOR_MISSING_RESIDENT_KEY_SUPPORT";
  if (name === "UnknownError") return "ERROR_AUTHENTICATOR_GENERAL_ERROR";
  if (name === "TypeError") return "ERROR_INVALID_USER_ID_LENGTH";
  return "ERROR_PASSTHROUGH_SEE_CAUSE_PROPERTY";
}

function webAuthnError(message: string, code: WebAuthnCeremonyCode | string) {
  return new KnownErrors.PasskeyWebAuthnError(message, { message, code });
}

/** Runs navigator.credentials.create() for server options; returns the RegistrationResponseJSON. */
export async function createPasskeyCredential(optionsJson: Record<string, any>, hostname: string): Promise<unknown> {
  const credentials = webAuthn();
  const api = staticApi();
  if (!credentials || !api?.parseCreationOptionsFromJSON) throw webAuthnError(WEBAUTHN_UNSUPPORTED_MESSAGE, "ERROR_PASSTHROUGH_SEE_CAUSE_PROPERTY");
  if (!isLocalhostOrDomain(hostname)) throw webAuthnError(`${hostname} is an invalid domain`, "ERROR_INVALID_DOMAIN");
  const json: Record<string, any> = { ...optionsJson, rp: { ...optionsJson.rp, id: optionsJson.rp?.id === RP_ID_PLACEHOLDER ? hostname : optionsJson.rp?.id } };
  const userIdLength = typeof json.user?.id === "string" ? Math.floor((json.user.id.length * 3) / 4) : 0;
  if (userIdLength < 1 || userIdLength > 64) throw webAuthnError("User ID must be between 1 and 64 bytes", "ERROR_INVALID_USER_ID_LENGTH");
  try {
    const credential = (await credentials.create({ publicKey: api.parseCreationOptionsFromJSON(json) })) as (Credential & { toJSON(): unknown }) | null;
    if (!credential) throw webAuthnError("Registration was not completed", "ERROR_CEREMONY_ABORTED");
    return credential.toJSON();
  } catch (err) {
    if (KnownErrors.PasskeyWebAuthnError.isInstance(err)) throw err;
    throw webAuthnError((err as Error)?.message ?? String(err), ceremonyCode(err, "registration"));
  }
}

/** Runs navigator.credentials.get() for server options; returns the AuthenticationResponseJSON. */
export async function getPasskeyAssertion(optionsJson: Record<string, any>, hostname: string): Promise<unknown> {
  const credentials = webAuthn();
  const api = staticApi();
  if (!credentials || !api?.parseRequestOptionsFromJSON) throw webAuthnError(WEBAUTHN_UNSUPPORTED_MESSAGE, "ERROR_PASSTHROUGH_SEE_CAUSE_PROPERTY");
  const json = { ...optionsJson, rpId: optionsJson.rpId === RP_ID_PLACEHOLDER ? hostname : optionsJson.rpId };
  try {
    const credential = (await credentials.get({ publicKey: api.parseRequestOptionsFromJSON(json) })) as (Credential & { toJSON(): unknown }) | null;
    if (!credential) throw webAuthnError("Authentication was not completed", "ERROR_CEREMONY_ABORTED");
    return credential.toJSON();
  } catch (err) {
    if (KnownErrors.PasskeyWebAuthnError.isInstance(err)) throw err;
    throw webAuthnError((err as Error)?.message ?? String(err), ceremonyCode(err, "authentication"));
  }
}
