// Runner for Node, Deno and Bun: the config arrives as one JSON argument, the report
// leaves as one stdout line starting with "E2E_REPORT ".
import { type E2EConfig, runAll } from "./entry.js";

const g = globalThis as { Deno?: { args: string[] }; process?: { argv: string[] } };
// Deno 2 also has a `process` global, so ask for Deno first.
const args = g.Deno ? g.Deno.args : (g.process?.argv.slice(2) ?? []);
const config = JSON.parse(args[0] ?? "{}") as E2EConfig;
const report = await runAll(config);
console.log("E2E_REPORT " + JSON.stringify(report));
