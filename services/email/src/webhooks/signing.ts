import { randomBytes } from "node:crypto";
import type { SecretBox } from "@vestibule/shared/secrets";
import { Webhook } from "standardwebhooks";

/** A new signing secret: `whsec_` + base64 of 32 random bytes (the Standard Webhooks / Svix format). */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString("base64")}`;
}

/** SecretBox context of an endpoint's secrets: a sealed secret opens only for the endpoint it was sealed for. */
export const secretContext = (endpointId: string) => `webhook-secret:${endpointId}`;

export function sealSecret(secrets: SecretBox, endpointId: string, secret: string): Promise<string> {
  return secrets.encrypt(secret, secretContext(endpointId));
}

export function openSecret(secrets: SecretBox, endpointId: string, sealed: string): Promise<string> {
  return secrets.decrypt(sealed, secretContext(endpointId));
}

/** The Standard Webhooks headers of one delivery, signed with every given secret (space-separated signatures). */
export function signedHeaders(secrets: readonly string[], messageId: string, timestamp: Date, body: string): Record<string, string> {
  const signatures = secrets.map((s) => new Webhook(s).sign(messageId, timestamp, body));
  return {
    "webhook-id": messageId,
    "webhook-timestamp": String(Math.floor(timestamp.getTime() / 1000)),
    "webhook-signature": signatures.join(" "),
  };
}
