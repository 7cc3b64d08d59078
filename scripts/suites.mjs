// The suites `npm test` runs, in order. Each resolves to { passed, failed, skipped }.
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { check, root, run, tmp } from "./run.mjs";

/** vitest in Node, counted from its JSON report. */
async function vitest(name, args = []) {
  const out = join(tmp, `vitest-${name}.json`);
  rmSync(out, { force: true });
  await run("npx", ["vitest", "run", "--reporter=default", "--reporter=json", `--outputFile.json=${out}`, ...args]);
  const report = JSON.parse(readFileSync(out, "utf8"));
  // Files that failed to load have no assertions: count each as a failure.
  const broken = report.testResults.filter((f) => f.status === "failed" && f.assertionResults.length === 0).length;
  return {
    passed: report.numPassedTests,
    failed: report.numFailedTests + broken,
    skipped: report.numPendingTests + report.numTodoTests,
  };
}

export const suites = [
  { name: "typecheck", run: () => check("npx", ["tsc", "-p", "."]) },
  { name: "build", run: () => check("npx", ["tsup"]) },
  { name: "node (vitest)", run: () => vitest("node") },
  {
    name: "package",
    run: async () => {
      // What users install: the packed tarball, checked by publint and attw.
      const packed = await run("npm", ["pack", "--pack-destination", tmp, "--json"], { quiet: true });
      const file = join(tmp, JSON.parse(packed.output.slice(packed.output.indexOf("[")))[0].filename);
      const a = await check("npx", ["publint", "--strict", file]);
      const b = await check("npx", ["attw", file, "--profile", "node16", "--format", "table-flipped"]);
      return { passed: a.passed + b.passed, failed: a.failed + b.failed, skipped: 0 };
    },
  },
];
export { root };
