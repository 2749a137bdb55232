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

/** A password-reset code works for an hour (not the 7-day default): a leaked or forgotten e-mail soon stops mattering. */
export const PASSWORD_RESET_CODE_LIFETIME_MS = 60 * 60 * 1000;
