import type { ServiceImpl } from "@connectrpc/connect";
import { OAuthService } from "@vestibule/proto/auth/v1/oauth_service";
import type { AuthRuntime } from "../runtime.ts";
import { createFlowHandlers } from "./flow-service.ts";
import { createLinkHandlers } from "./links-service.ts";
import { oauthRuntime } from "./runtime.ts";

/** OAuthService: the outer and inner OAuth flows (flow-service.ts) and the users' links (links-service.ts). */
export function createOAuthService(rt: AuthRuntime): ServiceImpl<typeof OAuthService> {
  const o = oauthRuntime(rt);
  const flows = createFlowHandlers(o);
  const links = createLinkHandlers(o);
  return {
    beginAuthorization: (req) => flows.beginAuthorization(req),
    handleCallback: (req) => flows.handleCallback({ ...req, ip: req.client?.ip ?? "" }),
    exchangeAuthorizationCode: (req) => flows.exchangeAuthorizationCode({ ...req, ip: req.client?.ip ?? "" }),
    authorizeCrossDomain: (req) => flows.authorizeCrossDomain(req),
    listOAuthAccounts: (req) => links.listOAuthAccounts(req),
    getOAuthAccount: (req) => links.getOAuthAccount(req),
    createOAuthAccount: (req) => links.createOAuthAccount(req),
    updateOAuthAccount: (req) => links.updateOAuthAccount(req),
    deleteOAuthAccount: (req) => links.deleteOAuthAccount(req),
    getConnectedAccessToken: (req) => links.getConnectedAccessToken(req),
  };
}
