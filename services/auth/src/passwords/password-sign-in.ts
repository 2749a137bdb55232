import { Code, ConnectError } from "@connectrpc/connect";
import type { SignInResult } from "@vestibule/proto/auth/v1/session";
import type { FindUserByAuthEmailResponse } from "@vestibule/proto/identity/v1/user_service";
import type { User } from "@vestibule/proto/identity/v1/user";
import { Batch, type BatchOutcome } from "@vestibule/shared/batch";
import { normalizeEmail } from "@vestibule/shared/emails";
import { knownError } from "@vestibule/shared/errors";
import type { AuthSettings } from "../domain/settings.ts";
import type { AuthRuntime } from "../runtime.ts";
import { requireSecondFactor } from "../mfa/second-factor.ts";
import { credentialKey, credentialStore } from "./store/credential-store.ts";

/** A user id nobody has: the credential lookup of an unknown e-mail costs the same as a known one. */
const NO_USER = "00000000-0000-4000-8000-000000000000";

export interface PasswordSignInInput {
  readonly projectId: string;
  readonly email: string;
  readonly password: string;
  /** End-user IP ("" when unknown). */
  readonly ip: string;
}

/** Each sign-in's outcome: its tokens, or the error a single sign-in would have failed with. */
export type PasswordSignInOutcome = BatchOutcome<SignInResult>;

/** Items most one SignInWithPasswords call may carry. */
export const MAX_SIGN_IN_BATCH = 256;

/**
 * Password sign-in, for one or many attempts at once (SignInWithPassword is a batch of one; gateways batch
 * concurrent sign-ins into SignInWithPasswords). Per batch, not per item: one identity call finds the users of every
 * e-mail (FindUsersByAuthEmails), one query reads their password hashes, one transaction reserves the brute-force
 * attempts of every item (per e-mail and per IP, each item counted: `RateLimiter.guardMany`) and one more records
 * their outcomes, one statement opens every session. Per item: the 429 of a blocked account or IP (before any argon2
 * work), an argon2 check on the thread pool (against a dummy hash when the e-mail is unknown or has no password, so
 * the answer takes as long), the re-hash of an imported or outdated hash, and the second factor.
 *
 * One item's failure never fails another; a failure of a shared step (identity or Postgres unreachable) fails the
 * items that needed it, with that error.
 */
export class PasswordSignIns {
  constructor(private readonly rt: AuthRuntime) {}

  async signIn(input: PasswordSignInInput): Promise<SignInResult> {
    const [outcome] = await this.signInMany([input]);
    if ("error" in outcome!) throw outcome.error;
    return outcome!.ok;
  }

  async signInMany(inputs: readonly PasswordSignInInput[]): Promise<PasswordSignInOutcome[]> {
    const { settings, limiter, hasher, sessions, ctx } = this.rt;
    const batch = new Batch<PasswordSignInInput, SignInResult>(inputs);

    // Project settings (cached: normally no I/O).
    const projectSettings = new Map<string, Promise<AuthSettings>>();
    for (const x of inputs) if (!projectSettings.has(x.projectId)) projectSettings.set(x.projectId, settings.get(x.projectId));
    const settingsOf: AuthSettings[] = new Array(inputs.length);
    await batch.each(batch.pending(), async (i) => {
      const s = await projectSettings.get(inputs[i]!.projectId)!;
      if (!s.passwordSignIn) throw knownError("PASSWORD_AUTHENTICATION_NOT_ENABLED");
      settingsOf[i] = s;
    });

    // The users of every e-mail, in one identity call.
    const emails = inputs.map((x) => normalizeEmail(x.email));
    const users: (User | undefined)[] = new Array(inputs.length);
    const lookups = batch.pending();
    if (lookups.length > 0) {
      const found = await batch.shared(() => this.findUsers(lookups.map((i) => ({ projectId: inputs[i]!.projectId, email: emails[i]! }))), lookups);
      if (found) lookups.forEach((i, k) => (users[i] = found[k]!.user));
    }

    // The password hashes of every item, in one query.
    const checking = batch.pending();
    const passwordHashes = await batch.shared(
      () => credentialStore.getMany(ctx.pool, checking.map((i) => ({ projectId: inputs[i]!.projectId, userId: users[i]?.id ?? NO_USER }))),
      checking,
    );
    if (!passwordHashes) return batch.outcomes();

    // Each item's check once the limiter reserved its attempt (refused items get the 429 before any argon2 work;
    // the argon2 work runs on the thread pool, the items of a round concurrently).
    const verified: number[] = [];
    const guarded = await batch.shared(
      () =>
        limiter.guardMany(
          checking.map((i) => ({ method: "password", projectId: inputs[i]!.projectId, account: emails[i], ip: inputs[i]!.ip || undefined })),
          async (k, attempt) => {
            const i = checking[k]!;
            const x = inputs[i]!;
            const user = users[i];
            const hash = user ? passwordHashes.get(credentialKey(x.projectId, user.id)) : undefined;
            const ok = hash ? await hasher.verify(hash, x.password) : await hasher.verifyDummy(x.password);
            if (!ok || !user || !hash) throw knownError("EMAIL_PASSWORD_MISMATCH");
            attempt.success();
            verified.push(i);
          },
        ),
      checking,
    );
    if (!guarded) return batch.outcomes();
    checking.forEach((i, k) => guarded[k] && batch.fail(i, guarded[k].error));

    // What a right password leads to: the re-hash of an imported or outdated hash, then the second factor.
    const accepted: number[] = [];
    await batch.each(verified, async (i) => {
      const x = inputs[i]!;
      const user = users[i]!;
      const hash = passwordHashes.get(credentialKey(x.projectId, user.id))!;
      if (hasher.needsRehash(hash)) await this.rehash(x, user, hash);
      await this.assertNoSecondFactor(x.projectId, user);
      accepted.push(i);
    });

    // Sessions for every accepted sign-in, in one statement; then their tokens.
    if (accepted.length > 0) {
      const opened = await batch.shared(
        () => sessions.openMany(ctx.pool, accepted.map((i) => ({ projectId: inputs[i]!.projectId, userId: users[i]!.id, ip: inputs[i]!.ip || undefined, isSignIn: true }))),
        accepted,
      );
      if (opened) await batch.each(accepted, async (i, k) => batch.succeed(i, await sessions.result(settingsOf[i]!, users[i]!, opened[k]!, false)));
    }
    return batch.outcomes();
  }

  /**
   * The second factor (see second-factor.ts): MULTI_FACTOR_AUTHENTICATION_REQUIRED with an attempt code instead of
   * tokens when the user has TOTP enabled.
   */
  async assertNoSecondFactor(projectId: string, user: User): Promise<void> {
    await requireSecondFactor(this.rt, { projectId, userId: user.id, requiresTotpMfa: user.requiresTotpMfa });
  }

  /** Imported (bcrypt) or older-parameter hashes become argon2id now that the password is known (best effort). */
  private async rehash(x: PasswordSignInInput, user: User, hash: string): Promise<void> {
    try {
      await credentialStore.replaceIfUnchanged(this.rt.ctx.pool, x.projectId, user.id, hash, await this.rt.hasher.hash(x.password));
    } catch (err) {
      this.rt.ctx.log.warn({ err, user_id: user.id }, "re-hashing the password failed; keeping the old hash");
    }
  }

  /**
   * The users of a batch of e-mails, in one FindUsersByAuthEmails call. Identity must have that RPC (no fallback to one
   * FindUserByAuthEmail per e-mail for older identity services: upgrade identity before auth, see deploy/README.md).
   */
  private async findUsers(lookups: { projectId: string; email: string }[]): Promise<FindUserByAuthEmailResponse[]> {
    const { results } = await this.rt.identity.users.findUsersByAuthEmails({ lookups });
    if (results.length !== lookups.length) throw new ConnectError(`FindUsersByAuthEmails answered ${results.length} results for ${lookups.length}`, Code.Internal);
    return results;
  }
}
