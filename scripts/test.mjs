#!/usr/bin/env node
// The one test command (npm test / .ci/run). Runs every suite in turn, prints each one's
// counts, and ends with a single line "N passed, N failed[, N skipped]" summed over all
// of them. A suite that cannot start counts as a failure, never as a skip.
import { suites } from "./suites.mjs";

const only = process.argv.slice(2);
const totals = { passed: 0, failed: 0, skipped: 0 };
const rows = [];
for (const suite of suites) {
  if (only.length && !only.includes(suite.name)) continue;
  const started = Date.now();
  console.log(`\n=== ${suite.name} ===`);
  let r;
  try {
    r = await suite.run();
  } catch (err) {
    console.error(`suite ${suite.name} could not run: ${err?.stack ?? err}`);
    r = { passed: 0, failed: 1, skipped: 0 };
  }
  if (r.passed + r.failed + (r.skipped ?? 0) === 0) {
    console.error(`suite ${suite.name} ran no tests: counted as a failure`);
    r = { passed: 0, failed: 1, skipped: 0 };
  }
  totals.passed += r.passed;
  totals.failed += r.failed;
  totals.skipped += r.skipped ?? 0;
  rows.push(
    `${suite.name.padEnd(22)} ${String(r.passed).padStart(5)} passed ${String(r.failed).padStart(4)} failed ${String(r.skipped ?? 0).padStart(3)} skipped  ${((Date.now() - started) / 1000).toFixed(1)}s`,
  );
}
console.log("\n=== summary ===");
for (const row of rows) console.log(row);
console.log(`${totals.passed} passed, ${totals.failed} failed${totals.skipped ? `, ${totals.skipped} skipped` : ""}`);
process.exit(totals.failed > 0 ? 1 : 0);
