/**
 * Invitation codes follow the contract's verification-code rules (endpoints.md §1.9, @vestibule/shared/codes), the
 * same rules the auth service applies to its codes; they are stored only as SHA-256.
 *
 * Why a table of our own rather than the auth service's code store over RPC: accepting an invitation must use the
 * code and add the membership (with its default grants and events) atomically. In one transaction here a code is used
 * exactly once and never without its membership; across two services a failure between "use the code" and "add the
 * member" would either lose the invitation or let a code work twice.
 *
 * Pure functions, no I/O.
 */
export { CODE_TAIL_LENGTH, MAX_CODE_ATTEMPTS, codeProblem, codeTail, linkWithCode, normalizeCode, type CodeFacts } from "@vestibule/shared/codes";
import { DEFAULT_CODE_LIFETIME_MS } from "@vestibule/shared/codes";

/** Lifetime of an invitation: the contract's default code lifetime, 7 days. */
export const INVITATION_LIFETIME_MS = DEFAULT_CODE_LIFETIME_MS;
