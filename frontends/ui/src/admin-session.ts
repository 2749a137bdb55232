/**
 * Admin credentials for one project, for the dashboard and the standalone area harness: either the signed-in owner's
 * session on the `internal` project (sent as x-stack-admin-access-token; dashboard, when the owned project did not come
 * from `user.listOwnedProjects()`) or the project's keys (standalone development of an area). Returns the SDK's admin
 * app and the headers the frontends server's development tools check.
 */
import { StackAdminApp, type TokenPair } from "@vestibule/js";

export type AdminCredentials =
  | { readonly kind: "owner"; readonly tokens: TokenPair; readonly internalPublishableClientKey: string; readonly accessToken: () => Promise<string | null> }
  /**
   * Project keys (standalone development of an area). The admin key alone opens only the "admin" endpoints; the
   * "server" ones (users, teams, ...) need the secret server key too (headers-and-auth.md §3).
   */
  | { readonly kind: "admin-key"; readonly superSecretAdminKey: string; readonly secretServerKey: string };

export interface AdminHandles {
  readonly adminApp: StackAdminApp;
  readonly adminHeaders: () => Promise<Record<string, string>>;
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
      adminHeaders: async () => ({ "x-stack-project-id": projectId, "x-stack-super-secret-admin-key": credentials.superSecretAdminKey }),
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
    }),
    adminHeaders: () => ownerHeaders(projectId, credentials.accessToken),
  };
}

/** Admin headers of a signed-in owner: their access token on the internal project is the admin access token. */
export async function ownerHeaders(projectId: string, accessToken: () => Promise<string | null>): Promise<Record<string, string>> {
  const token = await accessToken();
  return { "x-stack-project-id": projectId, ...(token ? { "x-stack-admin-access-token": token } : {}) };
}
