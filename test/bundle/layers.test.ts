// The house rules of src/ and adapters/ (DESIGN.md, "Layout" and "Layers"): no import cycle,
// type-only imports included; a layer imports only the layers below it, and another folder
// only through its index.ts; src/ keeps its few top-level entries; no file over 300 lines.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { expect, it } from "vitest";

const root = join(import.meta.dirname, "..", "..");
/** Bottom first: a layer may import the layers before it in this list, never one after it. */
const LAYERS = ["base", "schema", "http", "follow", "conversation", "tools", "loop", "suspension", "cost", "client", "journal"];

function files(dir: string): string[] {
  return readdirSync(join(root, dir)).flatMap((name) => {
    const path = join(dir, name);
    return statSync(join(root, path)).isDirectory() ? files(path) : path.endsWith(".ts") ? [path] : [];
  });
}

const sources = [...files("src"), ...files("adapters")];
const IMPORT = /(?:from|import)\s*\(?\s*["'](\.[^"']+)["']/g;

/** Each file's relative imports, resolved to repo paths (x.js → x.ts, a folder → its index.ts). */
const graph = new Map<string, string[]>(
  sources.map((file) => {
    const deps: string[] = [];
    for (const m of readFileSync(join(root, file), "utf8").matchAll(IMPORT)) {
      const target = normalize(join(dirname(file), m[1]!)).replace(/\.js$/, ".ts");
      deps.push(target);
    }
    return [file, deps];
  }),
);

it("src/ and adapters/ have no import cycle (type-only imports included)", () => {
  const cycles: string[] = [];
  const state = new Map<string, "open" | "done">();
  const visit = (file: string, path: string[]): void => {
    if (state.get(file) === "done") return;
    if (state.get(file) === "open") {
      cycles.push([...path.slice(path.indexOf(file)), file].join(" -> "));
      return;
    }
    state.set(file, "open");
    for (const dep of graph.get(file) ?? []) if (graph.has(dep)) visit(dep, [...path, file]);
    state.set(file, "done");
  };
  for (const file of graph.keys()) visit(file, []);
  expect(cycles).toEqual([]);
});

it("a layer imports only the layers below it, and another folder only through its index.ts", () => {
  const wrong: string[] = [];
  for (const [file, deps] of graph) {
    const from = file.startsWith("src/") ? file.split("/")[1]! : undefined;
    for (const dep of deps) {
      if (!dep.startsWith("src/")) continue;
      const [, layer, name] = dep.split("/");
      if (!LAYERS.includes(layer!) || layer === from) continue;
      if (name !== "index.ts" && !(layer === "http" && name === "kit.ts")) wrong.push(`${file} imports ${dep}, not src/${layer}/index.ts`);
      if (from && LAYERS.includes(from) && LAYERS.indexOf(layer!) > LAYERS.indexOf(from)) wrong.push(`${file} (${from}) imports the layer above it: ${layer}`);
    }
  }
  expect(wrong).toEqual([]);
});

it("src/ has about ten top-level entries, and no file in src/ or adapters/ is over 300 lines", () => {
  expect(readdirSync(join(root, "src")).sort()).toEqual([...LAYERS, "index.ts", "testing.ts"].sort());
  const long = sources.filter((f) => readFileSync(join(root, f), "utf8").split("\n").length - 1 > 300).map((f) => relative(root, join(root, f)));
  expect(long).toEqual([]);
});
