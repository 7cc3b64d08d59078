// The README quickstart, and every public options type filled from values that may be
// undefined, compile under exactOptionalPropertyTypes against the built package
// (test/types/strict: its own tsconfig, "toolloop" resolved to dist/ as a user gets it).
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";

const root = join(import.meta.dirname, "..", "..");

it("the README quickstart and every options type type-check under exactOptionalPropertyTypes", () => {
  if (!existsSync(join(root, "dist", "index.d.ts"))) throw new Error("dist/ is missing: run `npm run build` first");
  let output = "";
  try {
    execFileSync(process.execPath, [join(root, "node_modules", "typescript", "bin", "tsc"), "-p", "test/types/strict"], { cwd: root, stdio: "pipe" });
  } catch (err) {
    output = String((err as { stdout?: unknown }).stdout ?? err);
  }
  expect(output).toBe("");
}, 60_000);
