#!/usr/bin/env node
// node bench/cost.mjs: the cost figures (issue 15) — the share of the 20-step loop's input that
// the caching-aware Claude mock serves from cache with claude()'s default cache: "auto" versus
// "off", the bill at Sonnet prices, compaction on the same loop, and the CPU that pricing,
// tracer, compaction and fallback() add per run. Needs only the root devDependencies (no peer
// SDKs). Rewrites the "Cost" section of bench/RESULTS.md (between its markers) and prints it.
//
//   BENCH_QUICK=1 node bench/cost.mjs    a smoke run (fewer rounds; figures are not for quoting)
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import { benchDir } from "./lib/paths.mjs";

const QUICK = process.env.BENCH_QUICK === "1";
const ROUNDS = QUICK ? 2 : 7;
const RUNS = QUICK ? 10 : 40;
const WARMUP = QUICK ? 5 : 30;

const out = join(benchDir, ".build", "cost");
mkdirSync(out, { recursive: true });
await build({
  entryPoints: [join(benchDir, "cost", "scenario.ts")],
  outfile: join(out, "scenario.mjs"),
  bundle: true,
  format: "esm",
  platform: "node",
  target: "node20",
  logLevel: "warning",
  // valibot & co. load from the root node_modules as installed.
  packages: "external",
});
const s = await import(pathToFileURL(join(out, "scenario.mjs")).href);

// 1. Caching: the same loop with the cache on (default) and off.
const auto = await s.cacheRun("auto");
const off = await s.cacheRun("off");
// Compaction on the same loop: a limit the uncompacted run passes about halfway.
const limit = Math.round(off.inputTokens / off.requests);
const compacted = await s.cacheRun("auto", { compaction: s.compaction({ maxInputTokens: limit }) });

// 2. CPU per run, variants interleaved round by round (order reversed every other round).
const names = Object.keys(s.VARIANTS);
const cpu = Object.fromEntries(names.map((n) => [n, []]));
for (let r = 0; r < ROUNDS; r++) {
  for (const n of r % 2 ? [...names].reverse() : names) cpu[n].push(await s.loopCPU(n, RUNS, r === 0 ? WARMUP : 3));
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const base = median(cpu.plain);

const pct = (x) => `${(100 * x).toFixed(1)} %`;
const usd = (x) => `$${x.toFixed(4)}`;
const row = (label, f) =>
  `| ${label} | ${f.requests} | ${f.inputTokens.toLocaleString("en")} | ${f.cacheReadTokens.toLocaleString("en")} | ${f.cacheWriteTokens.toLocaleString("en")} | ${pct(f.share)} | ${usd(f.costUSD)} |`;
const md = [
  "<!-- cost:start (written by node bench/cost.mjs) -->",
  "## Cost: prompt caching, compaction, and what the cost features add",
  "",
  `Run ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${os.cpus()[0]?.model ?? "unknown CPU"} (${os.cpus().length} cores)${QUICK ? " — QUICK run, not for quoting" : ""}.`,
  `The loop: ${s.STEPS} steps × ${s.CALLS} parallel get_weather calls, then the answer, through claude() over HTTP against the`,
  "caching-aware Claude mock (test/mock/claude.ts: the API's prefix/breakpoint/20-block-lookback rules, 1,024-token minimum,",
  "tokens estimated as JSON characters / 4). Cost at Claude Sonnet 4.5 list prices ($3 input, $15 output, $0.30 cache read,",
  "$3.75 cache write per million tokens), output included.",
  "",
  "| claude() | requests | input tokens (all) | cache reads | cache writes | share served from cache | cost |",
  "|---|---:|---:|---:|---:|---:|---:|",
  row('`cache: "auto"` (default)', auto),
  row('`cache: "off"`', off),
  row(`"auto" + compaction (maxInputTokens ${limit.toLocaleString("en")}; ${compacted.compactions} compactions)`, compacted),
  "",
  `With the default cache, ${pct(auto.share)} of the loop's input tokens are read from cache and the run costs ${pct(auto.costUSD / off.costUSD)} of the uncached run.`,
  "",
  `CPU per ${s.STEPS}-step run with a provider that does no I/O (median of ${ROUNDS} interleaved rounds × ${RUNS} runs; pricing, a no-op`,
  "tracer, compaction with a limit never reached, fallback() over two providers of which the first answers):",
  "",
  "| variant | CPU per run | vs plain |",
  "|---|---:|---:|",
  ...names.map((n) => `| ${n} | ${(median(cpu[n]) / 1000).toFixed(2)} ms | ${(median(cpu[n]) / base).toFixed(2)}× |`),
  "<!-- cost:end -->",
].join("\n");

const file = join(benchDir, "RESULTS.md");
const old = existsSync(file) ? readFileSync(file, "utf8") : "";
const re = /<!-- cost:start[\s\S]*?<!-- cost:end -->/;
writeFileSync(file, re.test(old) ? old.replace(re, md) : `${old.trimEnd()}\n\n${md}\n`);
console.log(md);
