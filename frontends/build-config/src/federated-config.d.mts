import type { Configuration } from "@rspack/core";
import type { FrontendApp } from "./apps.ts";

export interface FederatedConfigOptions {
  /** The app (an entry of FRONTEND_APPS in apps.ts). */
  readonly app: FrontendApp;
  /** Absolute path of the frontends/ folder. */
  readonly frontendsDir: string;
  readonly mode?: "production" | "development";
  /** The output folder's name inside the app's folder (default `dist`; the development server's watch build: `dist-dev`). */
  readonly distDir?: string;
  /** Extra singletons (e.g. @vestibule/react once the SDK ships it). */
  readonly extraShared?: Readonly<Record<string, { singleton: true; requiredVersion: string }>>;
}

/** Packages every app shares as singletons (one instance per page). */
export declare const SHARED_SINGLETONS: Readonly<Record<string, { singleton: true; requiredVersion: string }>>;
export declare function createFederatedConfig(options: FederatedConfigOptions): Configuration;
