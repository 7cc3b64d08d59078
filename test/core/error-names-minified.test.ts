// Error names survive minification: an app's bundler renames classes, so a name taken from
// the class (new.target.name) would read "a" in production. Every exported error is built
// in a minified esbuild bundle and its name compared with the exported class's own name.

import { mkdirSync, writeFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";
import * as claudeLocal from "../../adapters/claude-local/index.js";
import * as core from "../../src/index.js";

const root = fileURLToPath(new URL("../..", import.meta.url));

describe("error names in a minified bundle", () => {
  it("every exported error class gives its own name and a code after minification", async () => {
    const classes = [...Object.entries(core), ...Object.entries(claudeLocal)].filter(
      ([, v]) => typeof v === "function" && (v === core.ToolloopError || v.prototype instanceof core.ToolloopError),
    );
    expect(classes.length).toBeGreaterThan(20);
    const entry = `
      import * as core from "./src/index.ts";
      import * as local from "./adapters/claude-local/index.ts";
      const all = { ...core, ...local };
      // Constructors take differing arguments: the first of these lists each one accepts.
      const ARGS = [["max_steps", "m"], ["m"], ["p", "m"], ["p", 1], [{ provider: "p", message: "m", reason: "exit", command: "c" }], ["a", "b", "c", "d"], [[]]];
      const make = (C) => {
        for (const args of ARGS) {
          try { const e = Reflect.construct(C, args); if (e.code) return e; } catch {}
        }
        return { name: "no argument list worked" };
      };
      export const names = Object.fromEntries(${JSON.stringify(classes.map(([k]) => k))}.map((k) => [k, [all[k].name, make(all[k]).name, make(all[k]).code]]));
    `;
    const out = await build({
      stdin: { contents: entry, resolveDir: root, loader: "js" },
      bundle: true,
      minify: true,
      format: "esm",
      platform: "neutral",
      write: false,
      logLevel: "silent",
    });
    const dir = `${root}.tmp/error-names`;
    mkdirSync(dir, { recursive: true });
    const file = `${dir}/bundle-${process.pid}.mjs`;
    writeFileSync(file, out.outputFiles[0]!.text);
    const { names } = (await import(pathToFileURL(file).href)) as { names: Record<string, [string, string, string]> };
    let renamed = 0;
    for (const [exported, C] of classes) {
      const [minifiedClassName, name, code] = names[exported]!;
      if (minifiedClassName !== exported) renamed++;
      const expected = exported === "ToolloopError" ? "MaxStepsError" : exported;
      expect(name, exported).toBe(expected);
      expect(code, exported).toMatch(/^[a-z_]+$/);
      expect((C as { name: string }).name).toBe(exported);
    }
    // The check means something only if the minifier did rename the classes.
    expect(renamed).toBeGreaterThan(10);
  });
});
