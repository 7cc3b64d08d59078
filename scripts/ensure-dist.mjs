#!/usr/bin/env node
// Builds dist/ (tsup) when it is missing or older than the sources, so `npm ci && npm run demo`
// works on a fresh clone now that nothing builds on install (the build runs on prepack).
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const built = join(root, "dist", "index.js");

function newest(dir) {
  let t = 0;
  for (const e of readdirSync(join(root, dir), { withFileTypes: true, recursive: true })) {
    if (e.isFile() && e.name.endsWith(".ts")) t = Math.max(t, statSync(join(e.parentPath ?? e.path, e.name)).mtimeMs);
  }
  return t;
}

const stale = !existsSync(built) || statSync(built).mtimeMs < Math.max(newest("src"), newest("adapters"), statSync(join(root, "tsup.config.ts")).mtimeMs);
if (stale) {
  console.error("building dist/ (npm run build) ...");
  const r = spawnSync("npx", ["tsup", "--silent"], { cwd: root, stdio: ["ignore", "ignore", "inherit"] });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
