import { existsSync } from "node:fs";
import { defineConfig } from "tsup";

// One entry per public subpath. Shared core code is split into chunks so that
// importing one adapter never pulls in another.
export default defineConfig({
  entry: Object.fromEntries(Object.entries({
    index: "src/index.ts",
    testing: "src/testing.ts",
    claude: "adapters/claude.ts",
    openai: "adapters/openai.ts",
    gemini: "adapters/gemini.ts",
    "claude-local": "adapters/claude-local.ts",
    tavily: "adapters/tavily.ts",
    mcp: "adapters/mcp.ts",
  }).filter(([, file]) => existsSync(file))),
  format: ["esm", "cjs"],
  dts: true,
  splitting: true,
  treeshake: true,
  clean: true,
  target: "es2022",
  platform: "neutral",
  external: ["valibot", "@valibot/to-json-schema", "@cfworker/json-schema", "eventsource-parser"],
});
