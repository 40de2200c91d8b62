import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * The shape of src/ that docs/architecture.md describes, checked so that it stays true: floors
 * that import only downwards, folders that never import each other both ways, and SQL only in
 * the domain and the data layer.
 */

const SRC = "src";

/** Bottom up; folders on one floor may import each other. */
const FLOORS = [["env"], ["db"], ["lib"], ["domain"], ["durable-objects"], ["middleware"], ["routes"], ["integrations"], ["jobs"], ["admin", "mcp"], ["dashboard"], ["app"], ["index"]];
const RANK = new Map(FLOORS.flatMap((floor, rank) => floor.map((name) => [name, rank] as const)));

interface Import {
  from: string;
  to: string;
  typeOnly: boolean;
  text: string;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

const files = sourceFiles(SRC).map((path) => ({ path: relative(SRC, path), text: readFileSync(path, "utf8") }));

/** Imports of project modules (`@/…` or relative), each resolved to a path under src/ without its extension. */
const imports: Import[] = files.flatMap(({ path, text }) =>
  [...text.matchAll(/^(?:import|export)\s+(type\s+)?[^;]*?from\s+["'](@\/|\.{1,2}\/)([^"']+)["']/gms)].map((m) => ({
    from: path,
    to: m[2] === "@/" ? m[3]! : normalize(join(dirname(path), m[2]! + m[3]!)),
    typeOnly: Boolean(m[1]),
    text: m[0],
  })),
);

const floorOf = (path: string) => path.split("/")[0]!.replace(/\.tsx?$/, "");
/** A file's folder; a file at the top of src/ is a node of its own. */
const folderOf = (path: string) => (path.includes("/") ? dirname(path) : path.replace(/\.tsx?$/, ""));

/** Strongly connected components of more than one node (Tarjan). */
function cycles(graph: Map<string, Set<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

describe("the structure of src/ (docs/architecture.md)", () => {
  it("finds the project's imports (the check below is not vacuous)", () => {
    expect(files.length).toBeGreaterThan(100);
    expect(imports.filter((i) => floorOf(i.from) === "routes" && floorOf(i.to) === "domain").length).toBeGreaterThan(20);
  });

  it("imports only from a file's own floor or below (env's type-only imports aside)", () => {
    const upward = imports
      .filter((i) => !(floorOf(i.from) === "env" && i.typeOnly))
      .filter((i) => RANK.has(floorOf(i.from)) && RANK.has(floorOf(i.to)) && RANK.get(floorOf(i.to))! > RANK.get(floorOf(i.from))!)
      .map((i) => `${i.from} -> ${i.to}`);
    expect(upward).toEqual([]);
  });

  it("places every folder of src/ on a floor", () => {
    expect(files.map((f) => floorOf(f.path)).filter((floor) => !RANK.has(floor))).toEqual([]);
  });

  it("has no folder importing a folder that imports it back, type imports counted", () => {
    const graph = new Map<string, Set<string>>();
    for (const i of imports.filter((i) => !(floorOf(i.from) === "env" && i.typeOnly))) {
      const [a, b] = [folderOf(i.from), folderOf(i.to)];
      if (a !== b) graph.set(a, (graph.get(a) ?? new Set()).add(b));
    }
    expect(cycles(graph)).toEqual([]);
  });

  it("has no circle of files, type imports counted (as madge finds them)", () => {
    const known = new Set(files.map((f) => f.path));
    const fileOf = (module: string) => [`${module}.ts`, `${module}.tsx`, `${module}/index.ts`].find((candidate) => known.has(candidate));
    const graph = new Map<string, Set<string>>();
    for (const i of imports) {
      const target = fileOf(i.to);
      if (target) graph.set(i.from, (graph.get(i.from) ?? new Set()).add(target));
    }
    expect(cycles(graph)).toEqual([]);
  });

  it("keeps SQL in src/domain/ and src/db/", () => {
    const sqlOutside = files
      .filter(({ path }) => !/^(domain|db)\//.test(path))
      .filter(({ text }) => /^import\s+(?!type\b)[^;]*from\s+["']drizzle-orm(\/[^"']*)?["']/m.test(text) || /\.(prepare|batch)\(|\bsql`/.test(text))
      .map(({ path }) => path);
    expect(sqlOutside).toEqual([]);
  });
});
