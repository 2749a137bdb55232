import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { renderCatalogueModule } from "../../scripts/render-errors.ts";

describe("generated known-error data", () => {
  it("matches the server catalogue (run `npm run generate:errors -w @vestibule/sdk-core` after catalogue edits)", () => {
    const committed = readFileSync(new URL("./catalogue.gen.ts", import.meta.url), "utf8");
    expect(committed).toBe(renderCatalogueModule());
  });
});
