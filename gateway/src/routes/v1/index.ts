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
];
