/** Every string over `alphabet` of length 0..`max`, shortest first: for checking a function against an oracle exhaustively. */
export function* allStrings(alphabet: readonly string[], max: number): Generator<string> {
  let level = [""];
  for (let n = 0; n <= max; n++) {
    yield* level;
    level = level.flatMap((s) => alphabet.map((c) => s + c));
  }
}

/** Milliseconds `fn` took (for generous upper bounds in tests, never exact timings). */
export function timed(fn: () => void): number {
  const start = performance.now();
  fn();
  return performance.now() - start;
}
