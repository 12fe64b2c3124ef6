// Import circles in src (issue 45), type-only imports included: a loop of files anywhere in src, and a loop of
// src/core's parts (a subfolder, or a file at its top), which layering forbids even when no two files close a loop.
// `npm run lint:cycles` (part of `npm run lint`) exits 1 on either; --graph prints the parts' edges with their counts.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import ts from "typescript";

const root = resolve(import.meta.dirname, "..");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === "generated" ? [] : sourceFiles(path);
    return name.endsWith(".ts") && !name.endsWith(".d.ts") ? [path] : [];
  });
}

/** Each file of src with the files of src it imports (relative specifiers only: packages cannot close a loop). */
export function importGraph(srcDir: string): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(srcDir)) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
    const targets = importedFiles
      .map((imported) => imported.fileName)
      .filter((specifier) => specifier.startsWith("."))
      .map((specifier) => resolve(dirname(file), specifier.replace(/\.js$/, ".ts")));
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** Strongly connected components with more than one member, or a member importing itself (Tarjan). */
export function loops(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter);
    counter += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) ?? 0, low.get(next) ?? 0));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node) ?? 0, index.get(next) ?? 0));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop();
      if (member === undefined) break;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || (graph.get(node) ?? []).includes(node)) found.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

/** src/core's parts: "transactions/" for a file in a subfolder, "errors.ts" for a file at the top. */
export function coreParts(graph: Map<string, string[]>, coreDir: string): Map<string, Map<string, number>> {
  const partOf = (file: string): string | null => {
    const path = relative(coreDir, file);
    if (path.startsWith("..")) return null;
    const [first, second] = path.split(sep);
    return second === undefined ? (first ?? null) : `${first}/`;
  };
  const parts = new Map<string, Map<string, number>>();
  for (const [file, targets] of graph) {
    const from = partOf(file);
    if (from === null) continue;
    const edges = parts.get(from) ?? new Map<string, number>();
    parts.set(from, edges);
    for (const target of targets) {
      const to = partOf(target);
      if (to !== null && to !== from) edges.set(to, (edges.get(to) ?? 0) + 1);
    }
  }
  return parts;
}

function main(): void {
  const srcDir = join(root, "src");
  const graph = importGraph(srcDir);
  const parts = coreParts(graph, join(srcDir, "core"));
  if (process.argv.includes("--graph")) {
    for (const [from, edges] of [...parts].sort()) {
      for (const [to, count] of [...edges].sort()) console.log(`${from} -> ${to} ${count}`);
    }
  }
  const fileLoops = loops(graph).map((component) => component.map((file) => relative(root, file)));
  const partLoops = loops(new Map([...parts].map(([part, edges]) => [part, [...edges.keys()]])));
  for (const component of fileLoops) console.log(`files in a loop: ${component.join(", ")}`);
  for (const component of partLoops) {
    const inside = new Set(component);
    const edges = component.flatMap((from) =>
      [...(parts.get(from) ?? [])].filter(([to]) => inside.has(to)).map(([to, count]) => `${from} -> ${to} (${count})`),
    );
    console.log(`src/core's parts in a loop: ${edges.join(", ")}`);
  }
  if (fileLoops.length > 0 || partLoops.length > 0) {
    console.log(`${fileLoops.length} loop(s) of files, ${partLoops.length} of src/core's parts`);
    process.exit(1);
  }
  console.log("no import loops in src, none between src/core's parts");
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === resolve(import.meta.filename)) main();
