// Every public entry point (except claude-local, which spawns a CLI) must bundle for the
// browser and for workerd with no Node API in it, and must not drag another adapter in.
import { existsSync } from "node:fs";
import { builtinModules } from "node:module";
import { join } from "node:path";
import { build, type Plugin } from "esbuild";
import { describe, expect, it } from "vitest";
import { root } from "../support/runtimes.js";

/** entry → a string only that entry's code contains (its API host or endpoint). */
const ENTRIES: Record<string, { file: string; marker: string | null }> = {
  index: { file: "src/index.ts", marker: null },
  testing: { file: "src/testing.ts", marker: null },
  http: { file: "src/http/kit.ts", marker: null },
  claude: { file: "adapters/claude/index.ts", marker: "api.anthropic.com" },
  openai: { file: "adapters/openai/index.ts", marker: "/chat/completions" },
  gemini: { file: "adapters/gemini/index.ts", marker: "generativelanguage.googleapis.com" },
  tavily: { file: "adapters/tavily/index.ts", marker: "api.tavily.com" },
  mcp: { file: "adapters/mcp/index.ts", marker: "notifications/initialized" },
};

const TARGETS = {
  browser: { platform: "browser" as const, conditions: undefined, mainFields: undefined },
  workerd: { platform: "neutral" as const, conditions: ["workerd", "worker", "browser"], mainFields: ["module", "main"] },
};

// Globals a bundle must not touch. `define` rewrites only real references to them (not
// strings, comments or local variables), so the check cannot be fooled by prose.
const FORBIDDEN_GLOBALS = ["process", "Buffer", "require", "eval", "Function", "globalThis.process", "globalThis.Buffer", "global"];
const marker = (name: string) => `__FORBIDDEN_${name.replace(/\W/g, "_")}__`;

/** Keeps Node built-ins as imports (instead of failing resolution) so the test can list them. */
const keepBuiltins: Plugin = {
  name: "keep-builtins",
  setup(b) {
    const builtins = new Set(builtinModules);
    b.onResolve({ filter: /.*/ }, (args) => {
      const bare = args.path.replace(/^node:/, "").split("/")[0]!;
      if (args.path.startsWith("node:") || builtins.has(bare)) return { path: args.path, external: true };
      return undefined;
    });
  },
};

/** Bundles a file (or, for the checker's own control test, source text). */
async function bundleEntry(file: string | { contents: string }, target: keyof typeof TARGETS) {
  const t = TARGETS[target];
  const result = await build({
    ...(typeof file === "string" ? { entryPoints: [join(root, file)] } : { stdin: { contents: file.contents, resolveDir: root, loader: "ts" as const } }),
    bundle: true,
    write: false,
    format: "esm",
    target: "es2022",
    platform: t.platform,
    conditions: t.conditions,
    mainFields: t.mainFields,
    // Whitespace minification drops comments; identifiers stay readable in failure messages.
    minifyWhitespace: true,
    metafile: true,
    logLevel: "silent",
    plugins: [keepBuiltins],
    define: Object.fromEntries(FORBIDDEN_GLOBALS.map((g) => [g, marker(g)])),
  });
  const code = result.outputFiles[0]!.text;
  const imports = Object.values(result.metafile.outputs).flatMap((o) => o.imports.map((i) => i.path));
  return { code, imports };
}

/** Short context around each hit, for a failure message a human can act on. */
function hits(code: string, needle: string): string[] {
  const out: string[] = [];
  for (let i = code.indexOf(needle); i !== -1 && out.length < 3; i = code.indexOf(needle, i + 1)) {
    out.push(code.slice(Math.max(0, i - 80), i + needle.length + 80));
  }
  return out;
}

/** The globals and imports the checker finds in a bundle. */
async function findings(file: string | { contents: string }, target: keyof typeof TARGETS) {
  const { code, imports } = await bundleEntry(file, target);
  const globals = Object.fromEntries(FORBIDDEN_GLOBALS.map((g) => [g, hits(code, marker(g))] as const).filter(([, h]) => h.length > 0));
  return { imports, globals, nodeText: hits(code, "node:") };
}

describe("the checker", () => {
  it("finds each forbidden global and built-in import, and ignores the same words in strings", async () => {
    const source = [
      'import { readFileSync } from "node:fs";',
      'import path from "path";',
      'export const env = typeof process !== "undefined" ? process.env.HOME : "";',
      'export const buf = Buffer.from("x");',
      'export const fn = new Function("return 1");',
      'export const ev = eval("1");',
      'export const req = typeof require === "function" ? require("x") : null;',
      'export const text = "process, Buffer, eval and new Function are only words here";',
      "export { readFileSync, path };",
    ].join("\n");
    const f = await findings({ contents: source }, "workerd");
    expect(f.imports.sort()).toEqual(["node:fs", "path"]);
    expect(Object.keys(f.globals).sort()).toEqual(["Buffer", "Function", "eval", "process", "require"]);
  });
});

for (const [name, { file, marker: own }] of Object.entries(ENTRIES)) {
  describe(`entry ${name} (${file})`, () => {
    it("exists", () => {
      expect(existsSync(join(root, file)), `${file} is missing`).toBe(true);
    });

    for (const target of Object.keys(TARGETS) as (keyof typeof TARGETS)[]) {
      it(`bundles for ${target} with no Node built-in, process, Buffer, require, eval or new Function`, async () => {
        const f = await findings(file, target);
        expect(f.imports, "imports left in the bundle (Node built-ins)").toEqual([]);
        expect(f.globals, "references to forbidden globals").toEqual({});
        expect(f.nodeText, 'the text "node:" in the bundle').toEqual([]);
      });
    }

    it("does not pull in another adapter", async () => {
      const { code } = await bundleEntry(file, "browser");
      if (own) expect(code, `${name}'s own marker must be in its bundle`).toContain(own);
      const others = Object.entries(ENTRIES)
        .filter(([other, e]) => other !== name && e.marker && code.includes(e.marker))
        .map(([other, e]) => `${other} (${e.marker})`);
      expect(others).toEqual([]);
    });
  });
}
