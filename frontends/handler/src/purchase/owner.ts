/**
 * Test mode (a project without a Stripe account): a purchase completes without payment through the admin-only
 * `test-mode-purchase-session`, so only the project's owners can do it, signed in to the dashboard on this origin.
 * This finds the signed-in owner (the `internal` project's session) and acts as them on the code's project.
 */
import { StackClientApp, type StackAdminApp } from "@vestibule/js";
import { createAdminHandles, loadRuntimeConfig } from "@vestibule/ui";

let internal: StackClientApp | null = null;

/** An admin app acting as the signed-in dashboard owner on `projectId`, or null when nobody is signed in. */
export async function ownerAdminApp(projectId: string): Promise<StackAdminApp | null> {
  const config = await loadRuntimeConfig();
  internal ??= new StackClientApp({ baseUrl: config.apiUrl, projectId: config.internalProjectId, publishableClientKey: config.internalPublishableClientKey, tokenStore: "cookie" });
  const owner = await internal.getUser();
  if (!owner) return null;
  const tokens = await owner.getAuthJson();
  return createAdminHandles(config.apiUrl, projectId, { kind: "owner", tokens, internalPublishableClientKey: config.internalPublishableClientKey }).adminApp;
}
