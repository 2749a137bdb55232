/**
 * No import cycles in services/, gateway/ or sdk/ (issue 22): the static imports of every .ts/.tsx file, relative and
 * `@vestibule/*` workspace paths resolved, type-only imports and type queries included, form a graph without cycles.
 * A failure names each cycle file by file.
 */
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { importCycles, importGraph, importSpecifiers } from "../src/import-graph.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));

describe("import graph", () => {
  it("has no cycle in services/, gateway/ or sdk/", () => {
    const graph = importGraph(root, ["services", "gateway", "sdk"]);
    expect(graph.size).toBeGreaterThan(300);
    const cycles = importCycles(root, graph).map((c) => c.join(" -> "));
    expect(cycles).toEqual([]);
  });

  it("finds a cycle and names it, and reads every static import form", () => {
    const a = "/r/a.ts";
    const b = "/r/b.ts";
    const c = "/r/c.ts";
    const graph = new Map([
      [a, [b]],
      [b, [c]],
      [c, [a]],
    ]);
    expect(importCycles("/r", graph)).toEqual([["a.ts", "b.ts", "c.ts", "a.ts"]]);
    expect(importCycles("/r", new Map([[a, [b]], [b, []]]))).toEqual([]);
    const text = [
      'import x from "./x.ts";',
      'import type { Y } from "./y.ts";',
      'export { z } from "./z.ts";',
      'export type * from "./t.ts";',
      'import "./side.ts";',
      "import {\n  a,\n  b,\n} from \"@vestibule/shared/db\";",
      'const lazy = await import("./lazy.ts");',
      'void import("./later.ts").then((m) => m.run());',
      'type Q = { readonly q: import("./query.ts").Query<string> };',
    ].join("\n");
    expect(importSpecifiers(text)).toEqual(["./x.ts", "./y.ts", "./z.ts", "./t.ts", "./side.ts", "@vestibule/shared/db", "./query.ts"]);
  });
});
