/**
 * The bookkeeping of a batched RPC (many items in one call, each answered as if it came alone): outcomes in the
 * items' order; a step the items share (one query, one RPC) that fails fails each item it was for with that error;
 * a step of one item that fails fails that item only. Used by every batched RPC (auth's SignInWithPasswords,
 * RefreshSessions) instead of hand-kept `out[i]` / `fail(i)` / `pending()` arrays.
 */
export type BatchOutcome<T> = { readonly ok: T } | { readonly error: unknown };

export class Batch<I, T> {
  private readonly out: (BatchOutcome<T> | undefined)[];

  constructor(readonly items: readonly I[]) {
    this.out = new Array<BatchOutcome<T> | undefined>(items.length).fill(undefined);
  }

  /** The indexes of the items that have no outcome yet, in order. */
  pending(): number[] {
    const open: number[] = [];
    for (let i = 0; i < this.out.length; i++) if (this.out[i] === undefined) open.push(i);
    return open;
  }

  isPending(i: number): boolean {
    return this.out[i] === undefined;
  }

  /** Item `i` succeeded (the first outcome of an item stands). */
  succeed(i: number, value: T): void {
    this.out[i] ??= { ok: value };
  }

  /** Item `i` failed with `error` (the first outcome of an item stands). */
  fail(i: number, error: unknown): void {
    this.out[i] ??= { error };
  }

  /**
   * A step shared by the items `indexes` (default: every pending one): its value, or, when it throws, undefined after
   * failing each of those items with the error. The step's own value must not be undefined.
   */
  async shared<R>(step: () => Promise<R>, indexes: readonly number[] = this.pending()): Promise<R | undefined> {
    try {
      return await step();
    } catch (error) {
      for (const i of indexes) this.fail(i, error);
      return undefined;
    }
  }

  /** A step of each item alone, all at once: an item whose step throws fails with that error, the others go on. */
  async each(indexes: readonly number[], step: (i: number, k: number) => Promise<void>): Promise<void> {
    await Promise.all(
      indexes.map(async (i, k) => {
        try {
          await step(i, k);
        } catch (error) {
          this.fail(i, error);
        }
      }),
    );
  }

  /** Every item's outcome, in order. An item left without one is a bug; it fails rather than answering nothing. */
  outcomes(): BatchOutcome<T>[] {
    return this.out.map((o) => o ?? { error: new Error("batch item left without an outcome") });
  }
}
