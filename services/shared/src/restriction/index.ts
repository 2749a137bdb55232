/**
 * Restricted users (contract latest-sdk.md A3/B): the one rule that decides whether a user is restricted and why,
 * used by the gateway's user views and request authentication and by the auth service's access-token claims
 * (`is_restricted`, `restricted_reason`). Identity's user listing filters with the same rule in SQL
 * (services/identity/src/store/user-store.ts, `restrictionConditions`). Pure, no I/O.
 *
 * Order of the reasons, as the current Stack backend decides them: anonymous users first (they must sign up), then an
 * unverified primary e-mail when the project requires verification (the user can fix it), then an administrator's
 * restriction.
 */

export type RestrictedReasonType = "anonymous" | "email_not_verified" | "restricted_by_administrator";

export interface RestrictedReason {
  readonly type: RestrictedReasonType;
}

export interface Restriction {
  readonly isRestricted: boolean;
  readonly reason: RestrictedReason | null;
}

/** The facts of a user the rule reads. */
export interface RestrictionFacts {
  readonly isAnonymous: boolean;
  readonly primaryEmailVerified: boolean;
  readonly restrictedByAdmin: boolean;
}

const NOT_RESTRICTED: Restriction = Object.freeze({ isRestricted: false, reason: null });

export function restrictionOf(user: RestrictionFacts, project: { readonly requireEmailVerification: boolean }): Restriction {
  if (user.isAnonymous) return { isRestricted: true, reason: { type: "anonymous" } };
  if (project.requireEmailVerification && !user.primaryEmailVerified) return { isRestricted: true, reason: { type: "email_not_verified" } };
  if (user.restrictedByAdmin) return { isRestricted: true, reason: { type: "restricted_by_administrator" } };
  return NOT_RESTRICTED;
}

/** `onboarding.requireEmailVerification` of a rendered project config (false when absent or malformed). */
export function requiresEmailVerification(renderedConfig: unknown): boolean {
  const onboarding = (renderedConfig as { onboarding?: { requireEmailVerification?: unknown } } | null | undefined)?.onboarding;
  return onboarding?.requireEmailVerification === true;
}
