/**
 * Writes src/errors/catalogue.gen.ts from the server's known-error catalogue (services/shared/src/errors/catalogue.ts).
 * The SDK must not import the server runtime (the catalogue pulls in @connectrpc/connect), so the data it needs is
 * copied here as plain data: code, HTTP status, abstract flag, parent chain, wire detail keys, the fixed message of
 * codes whose message takes no input, and the class name the published Stack Auth SDK uses for the code (so apps that
 * test `KnownErrors.UserNotFound.isInstance(err)` keep working after the move).
 *
 *   npm run generate:errors -w @vestibule/sdk-core
 *
 * `src/errors/catalogue.gen.test.ts` fails when the committed file and the catalogue drift apart.
 */
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { renderCatalogueModule } from "./render-errors.ts";

const target = fileURLToPath(new URL("../src/errors/catalogue.gen.ts", import.meta.url));
writeFileSync(target, renderCatalogueModule());
console.log(`wrote ${target}`);
