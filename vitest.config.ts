import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    exclude: ["test/bun/**", "test/deno/**", "node_modules/**"],
    testTimeout: 20_000,
    // fast-check and mock servers are CPU-bound; two workers fit the 2-core machines.
    maxWorkers: 2,
  },
});
