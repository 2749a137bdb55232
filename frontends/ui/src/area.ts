/**
 * The contract between the dashboard shell and its area remotes. Each remote exposes `./Area`, a component that
 * receives these props; it renders under `basePath` (e.g. /projects/<id>/users) and routes below it itself.
 */
import type { StackAdminApp } from "@vestibule/js";
import type { ApiClient } from "@vestibule/sdk-core";

export const AREA_CONTRACT_VERSION = 1;

export interface DashboardProject {
  readonly id: string;
  readonly displayName: string;
}

export interface AreaProps {
  /** Admin app of the project (the owner's session, or an admin key in standalone development). */
  readonly adminApp: StackAdminApp;
  /**
   * The same credentials as a raw /api/v1 client, for calls the SDK has no method for yet (GET /internal/metrics).
   * Always pass `accessType: "admin"`.
   */
  readonly adminApi: ApiClient;
  readonly project: DashboardProject;
  /** Path the area is mounted at, without a trailing slash. */
  readonly basePath: string;
  /** "development": dev-only tools (the dev mailbox) are shown. */
  readonly mode: "development" | "production";
  /** Absolute URL of the frontends server (dev mailbox listing), default the page's origin. */
  readonly frontendsOrigin?: string;
  /** Builds an URL of another area (e.g. the trusted domains page from a production-mode check). */
  readonly areaHref: (segment: string, subPath?: string) => string;
}
