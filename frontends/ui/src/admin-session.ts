/**
 * Admin credentials for one project, for the dashboard and the standalone area harness: either the signed-in owner's
 * session on the `internal` project (sent as x-stack-admin-access-token; dashboard, when the owned project did not come
 * from `user.listOwnedProjects()`) or the project's keys (standalone development of an area). Returns the SDK's admin
 * app.
 */
import { StackAdminApp, type TokenPair } from "@vestibule/js";
import { INTERACTIVE_RATE_LIMIT_WAIT_MS } from "./errors.ts";

export type AdminCredentials =
  | { readonly kind: "owner"; readonly tokens: TokenPair; readonly internalPublishableClientKey: string }
  /**
   * Project keys (standalone development of an area). The admin key alone opens only the "admin" endpoints; the
   * "server" ones (users, teams, ...) need the secret server key too (headers-and-auth.md §3).
   */
  | { readonly kind: "admin-key"; readonly superSecretAdminKey: string; readonly secretServerKey: string };

export interface AdminHandles {
  readonly adminApp: StackAdminApp;
}

export function createAdminHandles(apiUrl: string, projectId: string, credentials: AdminCredentials): AdminHandles {
  if (credentials.kind === "admin-key") {
    return {
      adminApp: new StackAdminApp({
        baseUrl: apiUrl,
        projectId,
        superSecretAdminKey: credentials.superSecretAdminKey,
        secretServerKey: credentials.secretServerKey,
        tokenStore: null,
        noAutomaticPrefetch: true,
        maxRateLimitWaitMillis: INTERACTIVE_RATE_LIMIT_WAIT_MS,
      }),
    };
  }
  return {
    adminApp: new StackAdminApp({
      baseUrl: apiUrl,
      projectId,
      projectOwnerSession: credentials.tokens,
      projectOwnerPublishableClientKey: credentials.internalPublishableClientKey,
      tokenStore: null,
      noAutomaticPrefetch: true,
      maxRateLimitWaitMillis: INTERACTIVE_RATE_LIMIT_WAIT_MS,
    }),
  };
}

