// Runner for Chromium: the page exposes runE2E(config) for the host to call.
import { type E2EConfig, runAll } from "./entry.js";

(globalThis as { runE2E?: (config: E2EConfig) => Promise<unknown> }).runE2E = (config) => runAll(config);
