/** One-time codes: the contract's rules, shared with the other services that issue codes. */
export {
  CODE_LENGTH,
  CODE_TAIL_LENGTH,
  DEFAULT_CODE_LIFETIME_MS,
  MAX_CODE_ATTEMPTS,
  codeProblem,
  codeTail,
  linkWithCode,
  normalizeCode,
  type CodeFacts,
} from "@vestibule/shared/codes";
