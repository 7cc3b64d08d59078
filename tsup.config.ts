import { existsSync, rmSync } from "node:fs";
import { defineConfig, type Options } from "tsup";

// One entry per public subpath. Shared core code is split into chunks so that
// importing one adapter never pulls in another.
const entries = Object.fromEntries(
  Object.entries({
    index: "src/index.ts",
    testing: "src/testing.ts",
    http: "src/http-kit.ts",
    claude: "adapters/claude.ts",
    openai: "adapters/openai.ts",
    gemini: "adapters/gemini.ts",
    "claude-local": "adapters/claude-local.ts",
    tavily: "adapters/tavily.ts",
    mcp: "adapters/mcp.ts",
  }).filter(([, file]) => existsSync(file)),
);

const common: Options = {
  format: ["esm", "cjs"],
  target: "es2022",
  platform: "neutral",
  external: ["valibot", "@cfworker/json-schema"],
  // The configs below run side by side, so none of them may clean: dist/ is emptied here, once.
  clean: false,
};
rmSync("dist", { recursive: true, force: true });

export default defineConfig([
  // The code: shared chunks, with source maps so stack traces point into src/.
  { ...common, entry: entries, splitting: true, treeshake: true, sourcemap: true },
  // The types: one self-contained .d.ts / .d.cts per entry. Shared declaration chunks would be
  // imported as "./tool-<hash>.js", a file that does not exist; TypeScript maps that to the
  // .d.ts, Deno (deno check on files, not packages) does not. Types are structural, so the
  // copies each entry carries (Tool, Provider, the error classes) are interchangeable.
  ...Object.entries(entries).map(([name, file]): Options => ({ ...common, entry: { [name]: file }, dts: { only: true } })),
]);
