import { createPrivateKey, KeyObject, randomBytes, type JsonWebKey } from "node:crypto";
import { exportJWK, generateKeyPair } from "jose";
import { withTransaction, uniqueViolation, type Pool } from "@vestibule/shared/db";
import type { EventBus, Outbox, Subscription } from "@vestibule/shared/events";
import { decodeEnvelope } from "@vestibule/shared/events";
import type { SecretBox } from "@vestibule/shared/secrets";
import { audienceFor } from "./domain/claims.ts";
import { AuthEvents } from "../events.ts";
import { signingKeyStore, type PublicJwk } from "./store/signing-key-store.ts";

export interface SigningKey {
  readonly kid: string;
  /**
   * The private key, imported once and kept (as a node:crypto KeyObject: signing with it synchronously costs about a
   * quarter of what a WebCrypto sign through jose costs, see AccessTokens).
   */
  readonly key: KeyObject;
}

/** How long a rotated key stays published beyond the access-token lifetime (caches, clock skew, in-flight mints). */
export const PUBLICATION_MARGIN_SECONDS = 15 * 60;

/**
 * ES256 signing keys per project and audience (`<projectId>`, `<projectId>:anon`).
 *  - Created lazily on first use; N replicas racing to create the first key agree on one (partial unique index on the
 *    current key + ON CONFLICT DO NOTHING, then everyone reads the winner).
 *  - Private keys are JWKs sealed with the service's SecretBox, bound to their kid; decrypted keys are cached in
 *    memory for `ttlMs` (so a rotation made by another replica is picked up even if its event is missed) and dropped
 *    on auth.signing_key.rotated.v1.
 *  - Each audience also has a next key, published in the JWKS before it signs anything (the published backend serves
 *    two keys per audience). Rotation makes the next key current for both audiences and publishes a new next key;
 *    the old keys stay published until their last tokens expire (access-token lifetime + margin).
 */
export class SigningKeys {
  private readonly current = new Map<string, { value: Promise<SigningKey>; expiresAt: number }>();

  constructor(
    private readonly deps: { pool: Pool; secrets: SecretBox; outbox: Outbox },
    private readonly ttlMs = 60_000,
  ) {}

  /** The key that signs new tokens of `projectId` for (non-)anonymous users. */
  signingKey(projectId: string, anonymous: boolean): Promise<SigningKey> {
    const audience = audienceFor(projectId, anonymous);
    const hit = this.current.get(audience);
    if (hit && hit.expiresAt > Date.now()) return hit.value;
    const value = this.loadOrCreate(projectId, audience);
    this.current.set(audience, { value, expiresAt: Date.now() + this.ttlMs });
    value.catch(() => this.current.delete(audience));
    return value;
  }

  /**
   * Public JWKS keys of an audience ({kty, alg, crv, kid, x, y}): the current key, its rotation partner (the next key,
   * published before it signs anything), then retired keys still in their publication window. Two keys normally, as
   * the published backend serves (issue 13).
   */
  async publishedKeys(projectId: string, anonymous: boolean): Promise<PublicJwk[]> {
    const audience = audienceFor(projectId, anonymous);
    let keys = await signingKeyStore.published(this.deps.pool, projectId, audience);
    if (keys.length === 0) {
      await this.signingKey(projectId, anonymous);
      keys = await signingKeyStore.published(this.deps.pool, projectId, audience);
    }
    let next = await signingKeyStore.next(this.deps.pool, projectId, audience);
    if (!next) {
      // Created lazily; replicas racing here agree on one (ON CONFLICT DO NOTHING, then everyone reads the winner).
      await signingKeyStore.insertNext(this.deps.pool, (await this.generate(projectId, audience)).row);
      next = await signingKeyStore.next(this.deps.pool, projectId, audience);
    }
    const [current, ...retired] = keys;
    const all = next ? [current!, next.public_jwk, ...retired] : keys;
    return all.map((k) => ({ kty: k.kty, alg: k.alg, crv: k.crv, kid: k.kid, x: k.x, y: k.y }));
  }

  /**
   * New current keys for both audiences of the project; the previous ones stay published for
   * `accessTokenLifetimeSeconds` + margin. Emits auth.signing_key.rotated.v1 per audience. Returns the new kid of the
   * (non-anonymous) project audience.
   */
  async rotate(projectId: string, accessTokenLifetimeSeconds: number): Promise<string> {
    const audiences = [false, true].map((anonymous) => ({ anonymous, audience: audienceFor(projectId, anonymous) }));
    // A fresh key per audience: the new next key (and the new current one when no next key was published yet).
    const fresh = await Promise.all(audiences.map(async (a) => ({ ...a, spare: await this.generate(projectId, a.audience), next: await this.generate(projectId, a.audience) })));
    const promoted = await withTransaction(this.deps.pool, async (tx) => {
      const kids: { audience: string; anonymous: boolean; kid: string; sealed: string }[] = [];
      for (const k of fresh) {
        const old = await signingKeyStore.current(tx, projectId, k.audience, true);
        if (old) await signingKeyStore.retire(tx, old.kid, accessTokenLifetimeSeconds + PUBLICATION_MARGIN_SECONDS);
        // The published next key becomes current, so verifiers that cached the JWKS already know it.
        const row = (await signingKeyStore.takeNext(tx, projectId, k.audience)) ?? k.spare.row;
        if (!(await signingKeyStore.insertCurrent(tx, row))) throw new Error(`signing key rotation of ${k.audience} raced with another`);
        await signingKeyStore.insertNext(tx, k.next.row);
        await this.deps.outbox.enqueue(tx, AuthEvents.signingKeyRotated, { projectId, kid: row.kid }, { projectId });
        kids.push({ audience: k.audience, anonymous: k.anonymous, kid: row.kid, sealed: row.private_jwk_sealed });
      }
      return kids;
    });
    for (const p of promoted) {
      const value = this.open(p.kid, p.sealed).then((key) => ({ kid: p.kid, key }));
      this.current.set(p.audience, { value, expiresAt: Date.now() + this.ttlMs });
      value.catch(() => this.current.delete(p.audience));
    }
    return promoted.find((p) => !p.anonymous)!.kid;
  }

  invalidate(projectId: string): void {
    this.current.delete(audienceFor(projectId, false));
    this.current.delete(audienceFor(projectId, true));
  }

  clear(): void {
    this.current.clear();
  }

  /** Drops cached keys of a project when any replica rotates them. */
  subscribe(bus: EventBus): Promise<Subscription> {
    return bus.broadcast({
      subject: "auth.signing_key.>",
      handler: (msg) => this.invalidate(decodeEnvelope(msg.data).projectId),
      onReset: () => this.clear(),
    });
  }

  private async loadOrCreate(projectId: string, audience: string): Promise<SigningKey> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const row = await signingKeyStore.current(this.deps.pool, projectId, audience);
      if (row) return { kid: row.kid, key: await this.open(row.kid, row.private_jwk_sealed) };
      const fresh = await this.generate(projectId, audience);
      try {
        if (await signingKeyStore.insertCurrent(this.deps.pool, fresh.row)) return { kid: fresh.row.kid, key: fresh.key };
      } catch (err) {
        // A kid collision (72 random bits) is retried with a new key like a lost race.
        if (uniqueViolation(err) === undefined) throw err;
      }
    }
    throw new Error(`could not create a signing key for ${audience}`);
  }

  private async generate(projectId: string, audience: string) {
    const { privateKey, publicKey } = await generateKeyPair("ES256", { extractable: true });
    const kid = randomBytes(9).toString("base64url");
    const pub = await exportJWK(publicKey);
    const priv = await exportJWK(privateKey);
    const publicJwk: PublicJwk = { kty: "EC", alg: "ES256", crv: pub.crv!, kid, x: pub.x!, y: pub.y! };
    const sealed = await this.deps.secrets.encrypt(JSON.stringify(priv), sealContext(kid));
    return { key: KeyObject.from(privateKey), row: { kid, project_id: projectId, audience, public_jwk: publicJwk, private_jwk_sealed: sealed } };
  }

  private async open(kid: string, sealed: string): Promise<KeyObject> {
    const jwk = JSON.parse(await this.deps.secrets.decrypt(sealed, sealContext(kid))) as JsonWebKey;
    return createPrivateKey({ key: jwk, format: "jwk" });
  }
}

function sealContext(kid: string): string {
  return `auth:signing_key:${kid}`;
}
