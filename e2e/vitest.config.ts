import { defineConfig } from "vitest/config";

// The runtime host is not part of the Node unit suite (test/): scripts/suites.mjs runs it
// once per runtime (TOOLLOOP_E2E_RUNTIMES selects which).
export default defineConfig({
  test: {
    include: ["e2e/**/*.test.ts"],
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
