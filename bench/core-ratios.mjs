#!/usr/bin/env node
import { mkdirSync } from "node:fs";
// The two ratios issue 12's CPU budgets are about, without the peers: toolloop ÷ the
// hand-written fetch loop for loop CPU (json, stream) and stream decode (20k text / argument
// events), each pair in fresh child processes (bench/worker.mjs) against the bench mock,
// interleaved A B / B A per round; prints each round's ratio and the median. ~4 min for
// R=3 on 2 cores. Not a replacement for `npm run bench` (RESULTS.md); a check while profiling.
//
//   node bench/core-ratios.mjs                      all formats, all four cells, 3 rounds
//   R=5 F=gemini,anthropic W=json,text node bench/core-ratios.mjs
import { join } from "node:path";

const { benchDir } = await import("./lib/paths.mjs");
const { buildRunnable } = await import("./lib/bundle.mjs");
const { runWorker } = await import("./lib/child.mjs");
const { startMockServer } = await import("./lib/mock-server.mjs");
const { FINAL_TEXT, TEXT_PIECE, argFragments, FORMATS } = await import("./lib/wire.mjs");
const { median } = await import("./lib/stats.mjs");
const ROUNDS = Number(process.env.R ?? 3);
const only = process.env.F ? process.env.F.split(",") : FORMATS;
const what = process.env.W ? process.env.W.split(",") : ["json", "stream", "text", "args"];
const buildDir = join(benchDir, ".build", "core");
mkdirSync(buildDir, { recursive: true });
const files = only.flatMap((f) => [`toolloop-${f}`, `raw-${f}`]);
await buildRunnable(
  files.map((f) => join(benchDir, "agents", `${f}.mjs`)),
  buildDir,
);
const server = await startMockServer();
// As in run.mjs: the measured loops come after the JIT has warmed up (WARM=n changes that).
const L = { warmup: Number(process.env.WARM ?? 150), warmupMs: 20_000, runs: 30, runsMs: 3000, minRuns: 5, heapLoops: 2 };
const out = {};
for (const kind of ["text", "args"]) for (const f of only) server.prepare(f, kind, 20000);
for (let r = 0; r < ROUNDS; r++) {
  for (const f of only)
    for (const w of what) {
      if (w === "args" && f === "gemini") continue;
      const cpu = {};
      const order = r % 2 ? ["raw", "toolloop"] : ["toolloop", "raw"];
      for (const sdk of order) {
        const file = join(buildDir, `${sdk}-${f}.mjs`);
        let res;
        if (w === "json" || w === "stream") {
          res = await runWorker({ task: "loop", file, base: `${server.origin}/loop`, mode: w, ...L, expect: FINAL_TEXT }, { timeoutMs: 180000 });
          if (!res.ok) {
            console.log("FAIL", sdk, f, w, res.stderr.slice(0, 500));
            continue;
          }
          cpu[sdk] = median(res.result.cpu);
        } else {
          const expect = w === "text" ? 20000 * TEXT_PIECE.length : argFragments(20000).join("").length;
          res = await runWorker(
            {
              task: "decode",
              file,
              warmupBase: `${server.origin}/${w}-20000`,
              warmup: 10,
              warmupMs: 1000,
              reps: 3,
              sizes: [{ key: "20000", base: `${server.origin}/${w}-20000`, expect }],
              big: null,
              bigBudgetMs: 0,
            },
            { timeoutMs: 60000 },
          );
          const c = res.progress.filter((p) => p.key).map((p) => p.cpu);
          if (!c.length) {
            console.log("FAIL", sdk, f, w, res.stderr.slice(0, 500));
            continue;
          }
          cpu[sdk] = median(c);
        }
      }
      const k = `${f}:${w}`;
      (out[k] ??= []).push(cpu.toolloop / cpu.raw);
      console.log(r, k, cpu.toolloop?.toFixed(2), cpu.raw?.toFixed(2), (cpu.toolloop / cpu.raw).toFixed(3));
    }
}
await server.close();
console.log("=== medians");
for (const [k, v] of Object.entries(out)) console.log(k.padEnd(20), median(v).toFixed(2), v.map((x) => x.toFixed(2)).join(" "));
