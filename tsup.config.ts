import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { defineConfig, type Options } from "tsup";

// One entry per public subpath. Shared core code is split into chunks so that
// importing one adapter never pulls in another.
const entries = Object.fromEntries(
  Object.entries({
    index: "src/index.ts",
    testing: "src/testing.ts",
    http: "src/http/kit.ts",
    claude: "adapters/claude/index.ts",
    openai: "adapters/openai/index.ts",
    gemini: "adapters/gemini/index.ts",
    "claude-local": "adapters/claude-local/index.ts",
    tavily: "adapters/tavily/index.ts",
    mcp: "adapters/mcp/index.ts",
    cloudflare: "adapters/cloudflare/index.ts",
    node: "hosts/node/index.ts",
  }).filter(([, file]) => existsSync(file)),
);

const common: Options = {
  format: ["esm", "cjs"],
  target: "es2022",
  platform: "neutral",
  // cloudflare:workers: workerd's own module (toolloop/cloudflare), never bundled.
  // node:http: toolloop/node's server, the one entry that imports a node: module; it keeps its
  // prefix (tsup drops it by default), which Deno needs.
  external: ["valibot", "@cfworker/json-schema", "node:http", "cloudflare:workers"],
  removeNodeProtocol: false,
  // The configs below run side by side, so none of them may clean: dist/ is emptied here, once.
  clean: false,
};
rmSync("dist", { recursive: true, force: true });

/**
 * Code splitting leaves bare imports of chunks in each file (`import './chunk-X.js';`) to keep
 * module evaluation order. The package has no side effects (`sideEffects: false`), so bundlers
 * drop them anyway and warn once per import in every app that bundles toolloop
 * (esbuild's ignored-bare-import). Every chunk imports what it uses itself, so they go; each
 * becomes an empty line, so the source maps still line up.
 */
function dropBareChunkImports(): void {
  for (const f of readdirSync("dist")) {
    if (!/\.(js|cjs)$/.test(f)) continue;
    const path = `dist/${f}`;
    const code = readFileSync(path, "utf8");
    const out = code.replace(/^(?:import '\.\/chunk-[A-Z0-9]+\.js';|require\('\.\/chunk-[A-Z0-9]+\.cjs'\);)$/gm, "");
    if (out !== code) writeFileSync(path, out);
  }
}

export default defineConfig([
  // The code: shared chunks, with source maps so stack traces point into src/.
  { ...common, entry: entries, splitting: true, treeshake: true, sourcemap: true, onSuccess: async () => dropBareChunkImports() },
  // The types: one self-contained .d.ts / .d.cts per entry. Shared declaration chunks would be
  // imported as "./tool-<hash>.js", a file that does not exist; TypeScript maps that to the
  // .d.ts, Deno (deno check on files, not packages) does not. Types are structural, so the
  // copies each entry carries (Tool, Provider, the error classes) are interchangeable.
  ...Object.entries(entries).map(([name, file]): Options => ({ ...common, entry: { [name]: file }, dts: { only: true } })),
]);
