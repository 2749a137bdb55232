/**
 * The static import graph of the repository's TypeScript (issue 22): every `import … from`, `export … from` and bare
 * `import "…"` of a .ts/.tsx file, resolved like the runtime does for relative paths and like npm workspaces do for
 * `@vestibule/<package>[/<subpath>]` (the package's `exports`, "source" condition first). Type-only imports count
 * too: a cycle of types still ties modules together for a reader and for a bundler's chunking, and so does a type
 * query (`import("./x.ts").X` in a type), which names a module as surely as `import type` does. A dynamic `import()`
 * that runs (`await import(…)`, `import(…).then(…)`) does not count (it is how a cycle is deliberately broken).
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const SKIP = new Set(["node_modules", "dist", "dist-dev", "gen", ".vestibule"]);
const STATIC_IMPORT = /^\s*(?:import|export)\s+(?:type\s+)?(?:[^"';]*?\s+from\s+)?["']([^"']+)["']/gm;
/** `import("…").Name` not followed by a call: a type query (`import("…").then(…)` is a dynamic import that runs). */
const TYPE_QUERY = /\bimport\(\s*["']([^"']+)["']\s*\)\s*\.\s*[A-Za-z_$][\w$]*(?![\w$]|\s*\()/g;

/** Every .ts/.tsx file below `dir` (no node_modules, dist or generated code). */
export function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    if (SKIP.has(name)) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path));
    else if (/\.tsx?$/.test(name) && !name.endsWith(".d.ts")) out.push(path);
  }
  return out;
}

/** The static import specifiers of one source text (imports, re-exports, then type queries). */
export function importSpecifiers(text: string): string[] {
  return [...text.matchAll(STATIC_IMPORT), ...text.matchAll(TYPE_QUERY)].map((m) => m[1]!);
}

type Exports = string | { source?: string; default?: string; import?: string } | Record<string, unknown>;

/** Resolves `@vestibule/*` specifiers through the workspace packages' `exports`. */
export class WorkspaceResolver {
  private readonly packages = new Map<string, { dir: string; exports: Record<string, Exports> }>();

  constructor(root: string) {
    const { workspaces } = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { workspaces: string[] };
    for (const pattern of workspaces) {
      const dirs = pattern.endsWith("/*") ? readdirSync(join(root, pattern.slice(0, -2))).map((d) => join(root, pattern.slice(0, -2), d)) : [join(root, pattern)];
      for (const dir of dirs) {
        const file = join(dir, "package.json");
        if (!existsSync(file)) continue;
        const pkg = JSON.parse(readFileSync(file, "utf8")) as { name: string; exports?: Record<string, Exports> | string };
        const exports = typeof pkg.exports === "string" ? { ".": pkg.exports } : (pkg.exports ?? {});
        this.packages.set(pkg.name, { dir, exports });
      }
    }
  }

  resolve(specifier: string): string | undefined {
    const m = /^(@vestibule\/[^/]+)(\/.*)?$/.exec(specifier);
    if (!m) return undefined;
    const pkg = this.packages.get(m[1]!);
    if (!pkg) return undefined;
    const sub = `.${m[2] ?? ""}`;
    let target = pkg.exports[sub];
    let star = "";
    if (target === undefined) {
      for (const [key, value] of Object.entries(pkg.exports)) {
        if (key.endsWith("/*") && sub.startsWith(key.slice(0, -1))) {
          target = value;
          star = sub.slice(key.length - 1);
        }
      }
    }
    if (target === undefined) return undefined;
    const path = typeof target === "string" ? target : ((target as { source?: string; default?: string }).source ?? (target as { default?: string }).default);
    return typeof path === "string" ? resolve(pkg.dir, path.replace("*", star)) : undefined;
  }
}

/** The graph: each file to the files it imports (only files inside the walked set). */
export function importGraph(root: string, dirs: readonly string[]): Map<string, string[]> {
  const resolver = new WorkspaceResolver(root);
  const files = dirs.flatMap((d) => sourceFiles(join(root, d)));
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const targets: string[] = [];
    for (const spec of importSpecifiers(readFileSync(file, "utf8"))) {
      let target: string | undefined;
      if (spec.startsWith(".")) {
        const base = resolve(dirname(file), spec);
        target = [base, base.replace(/\.js$/, ".ts"), `${base}.ts`, `${base}.tsx`, join(base, "index.ts")].find((p) => known.has(p));
      } else {
        target = resolver.resolve(spec);
      }
      if (target && known.has(target) && target !== file) targets.push(target);
    }
    graph.set(file, targets);
  }
  return graph;
}

/** Every import cycle (one per strongly connected component), each as a path of files relative to `root`. */
export function importCycles(root: string, graph: Map<string, string[]>): string[][] {
  // Tarjan's strongly connected components, iteratively (deep graphs must not overflow the stack).
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work: { node: string; next: number }[] = [{ node: start, next: 0 }];
    index.set(start, counter);
    low.set(start, counter++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const edges = graph.get(frame.node) ?? [];
      if (frame.next < edges.length) {
        const to = edges[frame.next++]!;
        if (!index.has(to)) {
          index.set(to, counter);
          low.set(to, counter++);
          stack.push(to);
          onStack.add(to);
          work.push({ node: to, next: 0 });
        } else if (onStack.has(to)) {
          low.set(frame.node, Math.min(low.get(frame.node)!, index.get(to)!));
        }
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1]!.node;
        low.set(parent, Math.min(low.get(parent)!, low.get(frame.node)!));
      }
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        let n: string;
        do {
          n = stack.pop()!;
          onStack.delete(n);
          component.push(n);
        } while (n !== frame.node);
        if (component.length > 1) components.push(component);
      }
    }
  }
  return components.map((c) => cyclePath(graph, new Set(c)).map((f) => relative(root, f)));
}

/** One concrete cycle inside a strongly connected component (a breadth-first path back to its first file). */
function cyclePath(graph: Map<string, string[]>, members: Set<string>): string[] {
  const first = [...members].sort()[0]!;
  const previous = new Map<string, string>();
  const queue = [first];
  while (queue.length > 0) {
    const node = queue.shift()!;
    for (const to of graph.get(node) ?? []) {
      if (!members.has(to)) continue;
      if (to === first) {
        const path = [first];
        for (let n = node; n !== first; n = previous.get(n)!) path.splice(1, 0, n);
        return [...path, first];
      }
      if (!previous.has(to)) {
        previous.set(to, node);
        queue.push(to);
      }
    }
  }
  return [...members];
}
