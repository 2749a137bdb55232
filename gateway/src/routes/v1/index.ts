import type { RouteSpec } from "../route.ts";
import { rootRoute } from "./root.ts";
import { getCurrentProjectRoute } from "./projects.ts";
import {
  createInternalProjectRoute,
  deleteAdminProjectRoute,
  getAdminProjectRoute,
  getConfigRoute,
  listInternalProjectsRoute,
  updateAdminProjectRoute,
  updateConfigOverrideRoute,
} from "./internal-projects.ts";
import {
  createInternalApiKeyRoute,
  getInternalApiKeyRoute,
  listInternalApiKeysRoute,
  updateInternalApiKeyRoute,
} from "./internal-api-keys.ts";

import {
  anonymousSignUpRoute,
  checkResetCodeRoute,
  passwordSignInRoute,
  passwordSignUpRoute,
  resetPasswordRoute,
  sendResetCodeRoute,
  setPasswordRoute,
  updatePasswordRoute,
} from "./auth-password.ts";
import {
  createSessionRoute,
  deleteCurrentSessionRoute,
  deleteSessionRoute,
  jwksRoute,
  listSessionsRoute,
  oauthTokenRoute,
  refreshCurrentSessionRoute,
} from "./auth-sessions.ts";
import {
  createUserRoute,
  deleteMeRoute,
  deleteUserRoute,
  getMeRoute,
  getUserRoute,
  listUsersRoute,
  metricsRoute,
  patchMeClientRoute,
  patchUserRoute,
} from "./users.ts";
import {
  checkVerificationCodeRoute,
  createContactChannelRoute,
  deleteContactChannelRoute,
  getContactChannelRoute,
  listContactChannelsRoute,
  patchContactChannelRoute,
  sendChannelVerificationRoute,
  sendLegacyVerificationRoute,
  verifyContactChannelRoute,
} from "./contact-channels.ts";
import { teamApiKeyRoutes, userApiKeyRoutes } from "./api-keys.ts";
import { credentialScanningRevokeRoute } from "./integrations.ts";
import { dataVaultGetRoute, dataVaultSetRoute } from "./data-vault.ts";
import { mfaSignInRoute } from "./auth-mfa.ts";
import { cliCompleteRoute, cliPollRoute, cliStartRoute } from "./auth-cli.ts";

/** Every route of /api/v1 (also served under /api/latest). */
export const v1Routes: readonly RouteSpec<any, any>[] = [
  rootRoute,
  getCurrentProjectRoute,
  listInternalProjectsRoute,
  createInternalProjectRoute,
  getAdminProjectRoute,
  updateAdminProjectRoute,
  deleteAdminProjectRoute,
  getConfigRoute,
  updateConfigOverrideRoute,
  createInternalApiKeyRoute,
  listInternalApiKeysRoute,
  getInternalApiKeyRoute,
  updateInternalApiKeyRoute,
  passwordSignUpRoute,
  passwordSignInRoute,
  sendResetCodeRoute,
  checkResetCodeRoute,
  resetPasswordRoute,
  updatePasswordRoute,
  setPasswordRoute,
  anonymousSignUpRoute,
  createSessionRoute,
  listSessionsRoute,
  deleteCurrentSessionRoute,
  deleteSessionRoute,
  refreshCurrentSessionRoute,
  oauthTokenRoute,
  jwksRoute,
  getMeRoute,
  patchMeClientRoute,
  deleteMeRoute,
  createUserRoute,
  listUsersRoute,
  getUserRoute,
  patchUserRoute,
  deleteUserRoute,
  metricsRoute,
  listContactChannelsRoute,
  createContactChannelRoute,
  checkVerificationCodeRoute,
  verifyContactChannelRoute,
  sendLegacyVerificationRoute,
  getContactChannelRoute,
  patchContactChannelRoute,
  deleteContactChannelRoute,
  sendChannelVerificationRoute,
  ...userApiKeyRoutes,
  ...teamApiKeyRoutes,
  credentialScanningRevokeRoute,
  dataVaultSetRoute,
  dataVaultGetRoute,
  mfaSignInRoute,
  cliStartRoute,
  cliPollRoute,
  cliCompleteRoute,
];
