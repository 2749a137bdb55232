/**
 * The contract between the dashboard shell and its area remotes. Each remote exposes `./Area`, a component that
 * receives these props; it renders under `basePath` (e.g. /projects/<id>/users) and routes below it itself.
 */
import type { CurrentUser, StackAdminApp } from "@vestibule/js";

export const AREA_CONTRACT_VERSION = 1;

export interface DashboardProject {
  readonly id: string;
  readonly displayName: string;
}

export interface AreaProps {
  /** Admin app of the project (acting as the signed-in owner, or with the project's keys in standalone development). */
  readonly adminApp: StackAdminApp;
  /**
   * The signed-in owner (a user of the internal project), for calls they make themselves (project transfer); null in
   * standalone development, where the area runs with project keys.
   */
  readonly owner: CurrentUser | null;
  readonly project: DashboardProject;
  /** Path the area is mounted at, without a trailing slash. */
  readonly basePath: string;
  /** "development": dev-only tools (the dev mailbox) are shown. */
  readonly mode: "development" | "production";
  /** Origin of the frontends server of the platform (its development dev mailbox), default the page's origin. */
  readonly frontendsOrigin?: string;
  /** Builds an URL of another area (e.g. the trusted domains page from a production-mode check). */
  readonly areaHref: (segment: string, subPath?: string) => string;
}
