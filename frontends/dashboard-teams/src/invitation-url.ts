/**
 * Where the dashboard's team invitation links lead: the project's own handler pages (they accept the code), on its
 * first trusted domain; null when the project has none (the dashboard then asks for one).
 */
export function invitationCallbackUrl(domains: readonly { domain: string; handlerPath: string }[]): string | null {
  const first = domains[0];
  if (!first) return null;
  return `${first.domain.replace(/\/+$/, "")}${first.handlerPath.replace(/\/+$/, "")}/team-invitation`;
}

