/**
 * Compiles the frontends in a plain `node` process (see federated-config.mjs for why): reads the apps and options as
 * JSON from argv[2], runs one rspack MultiCompiler, prints errors and exits non-zero on failure.
 */
import { rspack } from "@rspack/core";
import { createFederatedConfig } from "./federated-config.mjs";

const { apps, frontendsDir, mode } = JSON.parse(process.argv[2]);
const compiler = rspack(apps.map((app) => createFederatedConfig({ app, frontendsDir, mode })));
compiler.run((err, stats) => {
  compiler.close(() => {
    if (err) {
      console.error(err.stack ?? String(err));
      process.exit(1);
    }
    if (stats.hasErrors()) {
      console.error(stats.toString({ all: false, errors: true, colors: false }));
      process.exit(1);
    }
    process.exit(0);
  });
});
