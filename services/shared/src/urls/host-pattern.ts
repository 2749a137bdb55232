/**
 * Host patterns of trusted domains (spec section 5): `*` matches any run of characters except a dot, `**` any run
 * including dots, everything else matches itself case-insensitively.
 *
 * Matching simulates the pattern as a small automaton (the set of pattern positions reachable after each host
 * character), so one match costs at most `pattern length × host length` steps whatever the input: no backtracking
 * regular expression, no blow-up. With the limits below that is at most 253 × 253 ≈ 64k steps, well under a
 * millisecond. Patterns or hosts beyond the limits never match; identity refuses to store such patterns.
 */

/** The longest hostname DNS allows (RFC 1035): a longer host cannot be a real trusted host. */
export const MAX_HOSTNAME_LENGTH = 253;
/** The longest host pattern a trusted domain may have. */
export const MAX_HOST_PATTERN_LENGTH = 253;
/** The most wildcards (`*` or `**` runs) one host pattern may have. */
export const MAX_HOST_PATTERN_WILDCARDS = 8;

const enum Kind {
  Char,
  /** `*`: any run of characters other than a dot. */
  Star,
  /** `**` (or longer runs of stars): any run of characters. */
  GlobStar,
}

interface Token {
  readonly kind: Kind;
  readonly char: string;
}

function tokenize(pattern: string): Token[] {
  const tokens: Token[] = [];
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c !== "*") {
      tokens.push({ kind: Kind.Char, char: c });
      continue;
    }
    let end = i;
    while (pattern[end + 1] === "*") end++;
    tokens.push({ kind: end > i ? Kind.GlobStar : Kind.Star, char: "" });
    i = end;
  }
  return tokens;
}

/** The number of wildcards in a host pattern (a run of stars counts once). */
export function countWildcards(pattern: string): number {
  return tokenize(pattern).filter((t) => t.kind !== Kind.Char).length;
}

/** Adds the positions reachable without reading a character (a wildcard may match nothing). */
function close(tokens: readonly Token[], states: Uint8Array): void {
  for (let i = 0; i < tokens.length; i++) if (states[i] && tokens[i]!.kind !== Kind.Char) states[i + 1] = 1;
}

/** True when `hostname` matches `pattern` (exact, case-insensitive, or with `*` / `**` wildcards). */
export function matchHostPattern(pattern: string, hostname: string): boolean {
  const p = pattern.toLowerCase();
  const h = hostname.toLowerCase();
  if (!p.includes("*")) return p === h;
  if (p.length > MAX_HOST_PATTERN_LENGTH || h.length > MAX_HOSTNAME_LENGTH) return false;
  const tokens = tokenize(p);
  if (tokens.length - tokens.filter((t) => t.kind === Kind.Char).length > MAX_HOST_PATTERN_WILDCARDS) return false;
  let states = new Uint8Array(tokens.length + 1);
  let next = new Uint8Array(tokens.length + 1);
  states[0] = 1;
  close(tokens, states);
  for (let k = 0; k < h.length; k++) {
    const c = h[k]!;
    next.fill(0);
    let alive = false;
    for (let i = 0; i < tokens.length; i++) {
      if (!states[i]) continue;
      const t = tokens[i]!;
      if (t.kind === Kind.Char ? t.char === c : t.kind === Kind.GlobStar || c !== ".") {
        // A character advances past itself; a wildcard consumes it and stays.
        next[t.kind === Kind.Char ? i + 1 : i] = 1;
        alive = true;
      }
    }
    if (!alive) return false;
    close(tokens, next);
    [states, next] = [next, states];
  }
  return states[tokens.length] === 1;
}
