/**
 * Admin credentials for one project, for the dashboard and the standalone area harness: either the signed-in owner's
 * session on the `internal` project (sent as x-stack-admin-access-token; dashboard) or the project's admin key
 * (standalone development of an area). Returns the SDK's admin app and a raw API client with the same credentials.
 */
import { CLIENT_VERSION, StackAdminApp } from "@vestibule/js";
import { ApiClient, type TokenPair } from "@vestibule/sdk-core";

export type AdminCredentials =
  | { readonly kind: "owner"; readonly tokens: TokenPair; readonly internalPublishableClientKey: string }
  /**
   * Project keys (standalone development of an area). The admin key alone opens only the "admin" endpoints; the
   * "server" ones (users, teams, ...) need the secret server key too (headers-and-auth.md §3).
   */
  | { readonly kind: "admin-key"; readonly superSecretAdminKey: string; readonly secretServerKey: string };

export interface AdminHandles {
  readonly adminApp: StackAdminApp;
  readonly adminApi: ApiClient;
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
      }),
      adminApi: new ApiClient({
        baseUrl: apiUrl,
        projectId,
        superSecretAdminKey: credentials.superSecretAdminKey,
        secretServerKey: credentials.secretServerKey,
        clientVersion: CLIENT_VERSION,
      }),
    };
  }
  const internal = new ApiClient({ baseUrl: apiUrl, projectId: "internal", publishableClientKey: credentials.internalPublishableClientKey, clientVersion: CLIENT_VERSION });
  const owner = internal.createSession({ refreshToken: credentials.tokens.refreshToken, accessToken: credentials.tokens.accessToken });
  return {
    adminApp: new StackAdminApp({
      baseUrl: apiUrl,
      projectId,
      projectOwnerSession: owner,
      projectOwnerPublishableClientKey: credentials.internalPublishableClientKey,
      tokenStore: null,
      noAutomaticPrefetch: true,
    }),
    adminApi: new ApiClient({ baseUrl: apiUrl, projectId, projectOwnerSession: owner, clientVersion: CLIENT_VERSION }),
  };
}
