import { hash as argon2Hash, parseOptions as argon2Options, verify as argon2Verify, type Algorithm } from "@node-rs/argon2";
import { parseOptions as bcryptOptions, verify as bcryptVerify } from "@node-rs/bcrypt";
import { statusError } from "@vestibule/shared/errors";
import { randomCode } from "@vestibule/shared/secrets";
import { INVALID_PASSWORD_HASH_MESSAGE, passwordHashKind } from "./domain/passwords.ts";

/** `Algorithm.Argon2id` (an ambient const enum, which verbatimModuleSyntax cannot read). */
const ARGON2ID = 2 as Algorithm;

/** OWASP's argon2id recommendation: 19 MiB, 2 passes, 1 lane. */
export const ARGON2_OPTIONS = { algorithm: ARGON2ID, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

/**
 * Password hashing: argon2id (@node-rs/argon2, native, on the libuv thread pool, never on the event loop) for every
 * password set here; imported bcrypt hashes verify with @node-rs/bcrypt until the next successful sign-in re-hashes
 * them. Unknown users are checked against a dummy argon2id hash so that the answer takes as long as for a real one.
 */
export class PasswordHasher {
  private dummy: Promise<string> | undefined;
  /** Password checks started so far (real and dummy): how tests see how many guesses were actually checked. */
  verifications = 0;

  hash(password: string): Promise<string> {
    return argon2Hash(password, ARGON2_OPTIONS);
  }

  /** True when `password` matches `stored` (argon2id PHC or bcrypt MCF); a malformed hash never matches. */
  async verify(stored: string, password: string): Promise<boolean> {
    this.verifications++;
    try {
      switch (passwordHashKind(stored)) {
        case "argon2id":
          return await argon2Verify(stored, password);
        case "bcrypt":
          return await bcryptVerify(password, stored);
        default:
          return false;
      }
    } catch {
      return false;
    }
  }

  /** Verifies against a throw-away hash with the current parameters; always false. Same cost as a real check. */
  async verifyDummy(password: string): Promise<false> {
    this.verifications++;
    await argon2Verify(await this.dummyHash(), password).catch(() => false);
    return false;
  }

  /** Computes the dummy hash now (start-up), so the first unknown e-mail is not slower than the others. */
  async warmUp(): Promise<void> {
    await this.dummyHash();
  }

  private dummyHash(): Promise<string> {
    this.dummy ??= this.hash(randomCode(32));
    return this.dummy;
  }

  /** Whether a stored hash should be replaced by a fresh argon2id hash with the current parameters. */
  needsRehash(stored: string): boolean {
    if (passwordHashKind(stored) !== "argon2id") return true;
    try {
      const o = argon2Options(stored);
      return o.memoryCost !== ARGON2_OPTIONS.memoryCost || o.timeCost !== ARGON2_OPTIONS.timeCost || o.parallelism !== ARGON2_OPTIONS.parallelism;
    } catch {
      return true;
    }
  }

  /**
   * Checks an imported hash (Modular Crypt Format): bcrypt `$2a$/$2b$/$2y$`, or argon2id PHC, both parsed by their
   * library, with work factors a sign-in can afford (bcrypt cost ≤ 15; argon2id ≤ 256 MiB, t ≤ 20, p ≤ 16: a hash
   * beyond them would turn every sign-in into a denial of service). Anything else: 400 "Invalid password hash...".
   */
  assertImportable(stored: string): void {
    const kind = passwordHashKind(stored);
    try {
      if (kind === "bcrypt" && bcryptOptions(stored).cost <= MAX_BCRYPT_COST) return;
      if (kind === "argon2id") {
        const o = argon2Options(stored);
        if (o.memoryCost <= MAX_ARGON2_MEMORY_KIB && o.timeCost <= MAX_ARGON2_TIME && o.parallelism <= MAX_ARGON2_LANES) return;
      }
    } catch {
      // falls through to the 400
    }
    throw statusError(400, INVALID_PASSWORD_HASH_MESSAGE);
  }
}

const MAX_BCRYPT_COST = 15;
const MAX_ARGON2_MEMORY_KIB = 262_144;
const MAX_ARGON2_TIME = 20;
const MAX_ARGON2_LANES = 16;
