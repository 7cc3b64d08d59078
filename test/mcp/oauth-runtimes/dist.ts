// The Node and Chromium suites run the built package: refuse a dist/ older than the sources
// instead of testing old code (npm test builds before it runs the suites).
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { root } from "../../support/runtimes.js";

export function assertDistFresh(): void {
  const newest = (dir: string): number =>
    readdirSync(join(root, dir), { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && e.name.endsWith(".ts"))
      .reduce((m, e) => Math.max(m, statSync(join(e.parentPath, e.name)).mtimeMs), 0);
  const built = join(root, "dist", "mcp.js");
  if (!existsSync(built)) throw new Error("dist/ is missing: run `npx tsup`");
  if (Math.max(newest("src"), newest("adapters/mcp")) > statSync(built).mtimeMs) throw new Error("dist/ is older than the sources: run `npx tsup`");
}
