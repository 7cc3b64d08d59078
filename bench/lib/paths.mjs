// Where things are, without importing anything that needs bench/node_modules.
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const benchDir = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const repoRoot = resolve(benchDir, "..");
