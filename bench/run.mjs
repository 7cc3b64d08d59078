#!/usr/bin/env node
// npm run bench: toolloop side by side with the SDKs people would pick instead, in one run.
// Every figure is measured in this run on this machine; every comparison is a ratio of
// runs interleaved A B A B (each SDK in its own child process), never a stored number.
// Writes bench/RESULTS.md and prints it.
//
//   BENCH_QUICK=1 npm run bench    a smoke run (fewer rounds; figures are not for quoting)
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";

const { benchDir, repoRoot } = await import("./lib/paths.mjs");

// ------------------------------------------------------------------ 1. install (only if missing)
if (!existsSync(join(benchDir, "node_modules", ".package-lock.json"))) {
  console.log("bench/node_modules is missing: installing the pinned peer SDKs with `npm ci --prefix bench` (once) ...");
  const r = spawnSync("npm", ["ci", "--prefix", benchDir, "--no-audit", "--no-fund"], { stdio: "inherit" });
  if (r.status !== 0) {
    console.error("npm ci --prefix bench failed; the benchmark needs the peer SDKs in bench/node_modules.");
    process.exit(1);
  }
}

const { buildRunnable, bundleSize } = await import("./lib/bundle.mjs");
const { runWorker } = await import("./lib/child.mjs");
const { startMockServer } = await import("./lib/mock-server.mjs");
const { FINAL_TEXT, TEXT_PIECE, argFragments, FORMATS, TOOL_STEPS, TOOL_CALLS } = await import("./lib/wire.mjs");
const { SDKS, cells, loopModes, sizeExport } = await import("./lib/sdks.mjs");
const { median } = await import("./lib/stats.mjs");
const { renderReport } = await import("./lib/report.mjs");

const QUICK = process.env.BENCH_QUICK === "1";
// Rounds and per-process budgets, sized for a full run under ~10 minutes on 2 cores.
// toolloop and the hand-written loop (the ratio the targets are about) get more rounds than the peers.
const CFG = QUICK
  ? {
      importRounds: 2,
      loop: { coreRounds: 1, peerRounds: 1, warmup: 3, warmupMs: 500, runs: 4, runsMs: 500, minRuns: 2, heapLoops: 3, coldRuns: 3 },
      decode: { rounds: 1, reps: 1, warmup: 2, warmupMs: 200, sizes: [2000, 20000], big: 200000, bigBudgetMs: 3000, timeoutMs: 8000, slowMs: 2000 },
    }
  : {
      importRounds: 5,
      // Every SDK's loop CPU falls 2-3x over its first ~100-150 conversations in a process while
      // the JIT compiles it and undici (bench/BUDGETS.md has the curves), so the measured loops
      // come after 150 warm-up ones; the first 10 are reported apart, as the cold cost.
      loop: { coreRounds: 5, peerRounds: 3, warmup: 150, warmupMs: 20_000, runs: 30, runsMs: 3000, minRuns: 5, heapLoops: 10, coldRuns: 10 },
      decode: { rounds: 2, reps: 2, warmup: 10, warmupMs: 1000, sizes: [2000, 20000], big: 200000, bigBudgetMs: 6000, timeoutMs: 10000, slowMs: 3000 },
    };
const isCore = (sdk) => sdk.id === "toolloop" || sdk.id === "raw";

const t0 = Date.now();
const loadAtStart = os.loadavg()[0];
const log = (msg) => console.log(`[${((Date.now() - t0) / 1000).toFixed(0).padStart(4)}s] ${msg}`);
const buildDir = join(benchDir, ".build", "agents");
const agentPath = (file) => join(buildDir, `${file}.mjs`);

// The code measured is the code built now, so its commit is read now (not when the run ends).
let commit = "unknown";
try {
  commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: repoRoot, encoding: "utf8" }).trim();
  const dirty = execFileSync("git", ["status", "--porcelain", "--", "src", "adapters"], { cwd: repoRoot, encoding: "utf8" }).trim();
  if (dirty) commit += " + uncommitted changes in src/ or adapters/";
} catch {
  // not a git checkout
}
// ------------------------------------------------------------------ 2. build the agents
log("building the agent modules (toolloop from the repo sources)");
rmSync(join(benchDir, ".build"), { recursive: true, force: true });
mkdirSync(buildDir, { recursive: true });
await buildRunnable(
  cells().map((c) => join(benchDir, "agents", `${c.file}.mjs`)),
  buildDir,
);

const results = { sizes: {}, imports: {}, loops: {}, decode: {}, failures: [] };
const fail = (what, r) => {
  const reason = r.timedOut ? "timed out" : (r.stderr.split("\n").find((l) => /Error|error/.test(l)) ?? r.stderr.split("\n")[0] ?? "failed");
  results.failures.push(`${what}: ${reason}`);
  log(`  FAILED ${what}: ${reason}`);
};

// ------------------------------------------------------------------ 3. bundle size
log("bundle size: esbuild, minified, platform browser, gzip -9");
for (const { sdk, format, file } of cells()) {
  const exp = sizeExport(sdk, format);
  if (!exp) continue;
  try {
    const r = await bundleSize(`./agents/${file}.mjs`, exp);
    results.sizes[`${sdk.id}:${format}`] = { minified: r.minified, gzip: r.gzip, nodeImports: r.nodeImports };
  } catch (err) {
    results.failures.push(`bundle ${file}: ${String(err.message).split("\n")[0]}`);
  }
}

const server = await startMockServer();

/** Runs `jobs` in order, reversing the order every other round so drift cancels out. */
async function rounds(count, jobs, run) {
  for (let r = 0; r < count; r++) {
    const list = r % 2 ? [...jobs].reverse() : jobs;
    for (const job of list) await run(job, r);
  }
}

// ------------------------------------------------------------------ 4. import time
log(`import time: a fresh process per import, ${CFG.importRounds} interleaved rounds (+1 discarded)`);
const importJobs = cells();
await rounds(CFG.importRounds + 1, importJobs, async ({ sdk, format, file }, r) => {
  const res = await runWorker({ task: "import", file: agentPath(file) }, { timeoutMs: 60_000 });
  if (!res.ok) return fail(`import ${file}`, res);
  if (r > 0) (results.imports[`${sdk.id}:${format}`] ??= []).push(res.result.ms);
});

// ------------------------------------------------------------------ 5. loop overhead + memory
const L = CFG.loop;
log(`loop: ${TOOL_STEPS} steps × ${TOOL_CALLS} parallel tool calls; ${L.coreRounds} rounds (peers: ${L.peerRounds})`);
const loopJobs = [];
for (const format of FORMATS) {
  for (const mode of ["json", "stream"]) {
    for (const { sdk, file } of cells().filter((c) => c.format === format)) {
      if (loopModes(sdk, format).includes(mode)) loopJobs.push({ sdk, format, file, mode });
    }
  }
}
// Peers take part in every other round (0, 2, 4 ...): toolloop and the floor run in all of them.
const peerRound = (r) => r % 2 === 0 && r / 2 < L.peerRounds;
await rounds(Math.max(L.coreRounds, 2 * L.peerRounds - 1), loopJobs, async ({ sdk, format, file, mode }, r) => {
  if (isCore(sdk) ? r >= L.coreRounds : !peerRound(r)) return;
  const res = await runWorker({ task: "loop", file: agentPath(file), base: `${server.origin}/loop`, mode, ...L, expect: FINAL_TEXT }, { timeoutMs: 180_000 });
  if (!res.ok) return fail(`loop ${file} ${mode}`, res);
  const key = `${sdk.id}:${format}:${mode}`;
  const cell = (results.loops[key] ??= { rounds: [] });
  cell.rounds[r] = {
    cpu: median(res.result.cpu),
    cold: median(res.result.cold),
    wall: median(res.result.wall),
    loops: res.result.loops,
    heapKept: res.result.heapKept,
    peakRss: res.result.peakRss,
  };
});
log(`  mock server answered ${server.stats.requests} requests`);

// ------------------------------------------------------------------ 6. stream decode
const D = CFG.decode;
log(`stream decode: ${D.sizes.join(" / ")} events (+${D.big} in the last round), ${D.rounds} rounds`);
const expectFor = (kind, n) => (kind === "text" ? n * TEXT_PIECE.length : argFragments(n).join("").length);
const decodeJobs = [];
for (const kind of ["text", "args"]) {
  for (const format of FORMATS) {
    for (const { sdk, file } of cells().filter((c) => c.format === format)) {
      if (kind === "args" && format === "gemini") continue; // Gemini sends a function call whole
      decodeJobs.push({ sdk, format, file, kind });
    }
  }
}
for (const kind of ["text", "args"]) for (const format of FORMATS) for (const n of [...D.sizes, D.big]) server.prepare(format, kind, n);
const stopped = new Set(); // sizes that ran past the time limit, or took over slowMs, are not run again
await rounds(D.rounds, decodeJobs, async ({ sdk, format, file, kind }, r) => {
  const key = `${sdk.id}:${format}:${kind}`;
  const size = (n) => ({ key: String(n), base: `${server.origin}/${kind}-${n}`, expect: expectFor(kind, n) });
  const sizes = D.sizes.filter((n) => !stopped.has(`${key}:${n}`)).map(size);
  const cell = (results.decode[key] ??= { rounds: [], notes: [] });
  if (sizes.length === 0) return;
  const lastRound = r === D.rounds - 1;
  const res = await runWorker(
    {
      task: "decode",
      file: agentPath(file),
      warmupBase: `${server.origin}/${kind}-${D.sizes[0]}`,
      warmup: D.warmup,
      warmupMs: D.warmupMs,
      reps: D.reps,
      sizes,
      big: lastRound && sizes.length === D.sizes.length ? size(D.big) : null,
      bigBudgetMs: D.bigBudgetMs,
    },
    { timeoutMs: D.timeoutMs },
  );
  const round = {};
  let running;
  for (const p of res.progress) {
    if (p.start) running = { key: p.start, at: p };
    else if (p.skipped) cell.notes.push(`${p.skipped} not run: ${p.reason}`);
    else if (p.key) {
      (round[p.key] ??= { cpu: [], wall: [] }).cpu.push(p.cpu);
      round[p.key].wall.push(p.wall);
      running = undefined;
    }
  }
  cell.rounds[r] = Object.fromEntries(Object.entries(round).map(([k, v]) => [k, { cpu: median(v.cpu), wall: median(v.wall) }]));
  for (const [k, v] of Object.entries(round)) if (median(v.wall) > D.slowMs) stopped.add(`${key}:${k}`);
  if (res.timedOut && running) {
    stopped.add(`${key}:${running.key}`);
    // It had been running at least this long when it was stopped (the child's clock starts with the child).
    cell.timeouts = { ...cell.timeouts, [running.key]: Math.max(0, res.elapsedMs - running.at.at) };
    log(`  ${file} ${kind}: ${running.key} events did not finish within the ${D.timeoutMs / 1000} s per-process limit`);
  } else if (!res.ok) fail(`decode ${file} ${kind}`, res);
});

await server.close();
if (server.stats.errors.length) results.failures.push(`mock server had no answer for: ${[...new Set(server.stats.errors)].slice(0, 5).join(", ")}`);

// ------------------------------------------------------------------ 7. report
const versions = {};
for (const sdk of SDKS) {
  for (const pkg of sdk.packages) {
    try {
      versions[pkg] = JSON.parse(readFileSync(join(benchDir, "node_modules", pkg, "package.json"), "utf8")).version;
    } catch {
      versions[pkg] = "not installed";
    }
  }
}
const rootPkg = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8"));
const depVersion = (name) => {
  try {
    return JSON.parse(readFileSync(join(repoRoot, "node_modules", name, "package.json"), "utf8")).version;
  } catch {
    return "?";
  }
};
const env = {
  date: new Date().toISOString().slice(0, 10),
  node: process.version,
  machine: `${os.cpus()[0]?.model ?? "unknown CPU"}, ${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, ${os.type()} ${os.release()} ${os.arch()}`,
  toolloop: `${rootPkg.version} (${commit}; valibot ${depVersion("valibot")}, @cfworker/json-schema ${depVersion("@cfworker/json-schema")}; esbuild ${depVersion("esbuild")})`,
  versions,
  config: CFG,
  quick: QUICK,
  minutes: (Date.now() - t0) / 60000,
  load: [loadAtStart, os.loadavg()[0]],
  cores: os.cpus().length,
};
const markdown = renderReport(results, env);
writeFileSync(join(benchDir, "RESULTS.md"), markdown);
writeFileSync(join(benchDir, ".build", "results.json"), JSON.stringify({ env, results }, null, 2));
console.log(`\n${markdown}`);
log(`wrote bench/RESULTS.md${QUICK ? " (quick run: not for quoting)" : ""}`);
// The cost figures (caching share, compaction, cost-feature CPU) append their own section.
log("cost: caching-aware Claude mock, cost-feature overhead (bench/cost.mjs)");
await import("./cost.mjs");
