/**
 * createFederatedConfig(): the one rspack + Module Federation configuration of every Vestibule frontend.
 *
 * - Every app has an async boundary (`src/index.ts` only does `import("./bootstrap.tsx")`), so shared modules are
 *   negotiated before anything renders.
 * - React 19, react-dom, the SDK packages (@vestibule/sdk-core, /js, /react) and the UI kit are MF singletons: host
 *   and remotes share one React, one session store, one provider context and one theme.
 * - No remote URL is baked into a build: hosts register remotes at run time from the manifest the server serves
 *   (`/remotes.json`), so remotes can move or be down without a rebuild.
 * - Remotes also build an index.html with a standalone harness, so each runs alone in development.
 * - Workspace packages are resolved through their "source" export condition (TypeScript sources), as in the tests.
 *
 * Plain JavaScript on purpose: it runs in a plain `node` child process (compile.mjs). Under a TypeScript loader
 * (tsx) the Module Federation runtime, which rspack embeds by stringifying functions, would carry the loader's
 * helpers (`__name`) into the browser bundles. Types: federated-config.d.mts.
 */
import { rspack } from "@rspack/core";
import { ModuleFederationPlugin } from "@module-federation/enhanced/rspack";
import { join } from "node:path";

/** Packages every app shares as singletons (one instance per page). */
export const SHARED_SINGLETONS = {
  react: { singleton: true, requiredVersion: "^19.0.0" },
  "react-dom": { singleton: true, requiredVersion: "^19.0.0" },
  "react/jsx-runtime": { singleton: true, requiredVersion: "^19.0.0" },
  "react-dom/client": { singleton: true, requiredVersion: "^19.0.0" },
  "@vestibule/sdk-core": { singleton: true, requiredVersion: "^0.1.0" },
  "@vestibule/js": { singleton: true, requiredVersion: "^0.1.0" },
  "@vestibule/react": { singleton: true, requiredVersion: "^0.1.0" },
  "@vestibule/ui": { singleton: true, requiredVersion: "^0.1.0" },
};

const HTML = (title) => `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta name="color-scheme" content="light dark" />
    <title>${title}</title>
    <link rel="icon" href="/favicon.svg" type="image/svg+xml" />
    <script>try{var t=localStorage.getItem("vestibule-theme");document.documentElement.dataset.theme=t==="dark"||t==="light"?t:(matchMedia("(prefers-color-scheme: dark)").matches?"dark":"light")}catch(e){}</script>
    <style>html{background:#f7f7f9;color-scheme:light}html[data-theme=dark]{background:#111318;color-scheme:dark}body{margin:0}</style>
  </head>
  <body><div id="root"></div></body>
</html>`;

const TITLES = {
  handler: "Sign in",
  shell: "Vestibule dashboard",
  "example-host": "Example app",
};

/**
 * @param {import("./federated-config.d.mts").FederatedConfigOptions} options
 * @returns {import("@rspack/core").Configuration}
 */
export function createFederatedConfig(options) {
  const app = options.app;
  const dir = join(options.frontendsDir, app.dir);
  const mode = options.mode ?? "production";
  const prod = mode === "production";
  return {
    name: app.dir,
    context: dir,
    mode,
    devtool: prod ? false : "cheap-module-source-map",
    entry: { main: "./src/index.ts" },
    output: {
      path: join(dir, options.distDir ?? "dist"),
      publicPath: "auto",
      uniqueName: app.mfName,
      clean: true,
      filename: prod ? "[name].[contenthash:8].js" : "[name].js",
      chunkFilename: prod ? "[name].[contenthash:8].js" : "[name].js",
    },
    resolve: {
      extensions: [".tsx", ".ts", ".js", ".mjs"],
      conditionNames: ["source", "browser", "import", "module", "default"],
      extensionAlias: { ".js": [".ts", ".tsx", ".js"] },
    },
    module: {
      rules: [
        {
          test: /\.[cm]?[jt]sx?$/,
          exclude: /node_modules/,
          loader: "builtin:swc-loader",
          type: "javascript/auto",
          options: {
            jsc: {
              parser: { syntax: "typescript", tsx: true },
              transform: { react: { runtime: "automatic", development: !prod } },
              target: "es2022",
            },
          },
        },
      ],
    },
    performance: { hints: false },
    optimization: { minimize: prod },
    plugins: [
      new rspack.HtmlRspackPlugin({
        templateContent: HTML(TITLES[app.dir] ?? `${app.area?.title ?? app.dir} (standalone)`),
        // Pages live at nested client-side routes: load the scripts from the mount point, not relative to the route.
        publicPath: app.mountPath,
        inject: "body",
        // Only the app's own entry: the remote container (remoteEntry.js) repeats the MF runtime and is for hosts.
        chunks: ["main"],
      }),
      new ModuleFederationPlugin({
        name: app.mfName,
        ...(app.exposes ? { filename: "remoteEntry.js", exposes: { ...app.exposes } } : {}),
        // Hosts register their remotes at run time (runtime manifest); nothing is listed here.
        remotes: {},
        manifest: true,
        dts: false,
        shared: { ...SHARED_SINGLETONS, ...(options.extraShared ?? {}) },
      }),
    ],
    stats: "errors-warnings",
    infrastructureLogging: { level: "error" },
  };
}
