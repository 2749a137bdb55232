/**
 * Compiles the frontends in a plain `node` process (see federated-config.mjs for why): reads the apps and options as
 * JSON from argv[2], runs one rspack MultiCompiler, prints errors and exits non-zero on failure. With `watch: true`
 * (dev.ts) it keeps running and prints one line per rebuild: `built <ms>` or `failed` followed by the errors.
 */
import { rspack } from "@rspack/core";
import { createFederatedConfig } from "./federated-config.mjs";

const { apps, frontendsDir, mode, watch, distDir } = JSON.parse(process.argv[2]);
const compiler = rspack(apps.map((app) => createFederatedConfig({ app, frontendsDir, mode, distDir })));

if (watch) {
  compiler.watch({ aggregateTimeout: 200 }, (err, stats) => {
    if (err) console.log(`failed\n${err.stack ?? String(err)}`);
    else if (stats.hasErrors()) console.log(`failed\n${stats.toString({ all: false, errors: true, colors: false })}`);
    else console.log(`built ${Math.max(...stats.stats.map((s) => s.endTime - s.startTime))}`);
  });
} else {
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
}
