// One measurement in a fresh process (run.mjs starts one per SDK per job, with --expose-gc).
// argv[2] is a JSON job; the last stdout line is the JSON result.
//   { task: "import", file }                         ms to import the agent module
//   { task: "loop", file, base, mode, warmup, warmupMs, runs, runsMs, minRuns, heapLoops, coldRuns, expect }
//                                                   cpu/wall ms per loop, cpu of the first coldRuns
//                                                   warm-up loops, heap kept, peak RSS
//   { task: "decode", file, sizes, big, bigBudgetMs, warmupBase, warmup, warmupMs, reps }
//                                                   cpu/wall ms per streamed call, as progress lines
import { performance } from "node:perf_hooks";

const job = JSON.parse(process.argv[2]);
const gc = globalThis.gc ?? (() => {});

/**
 * A full collection, with the turns in between that let finalizers run: undici (every SDK's
 * fetch in Node) frees what it holds per aborted-or-signalled request from a
 * FinalizationRegistry callback, which a synchronous gc() pair never lets run, so without the
 * turns "heap kept" would count garbage that is only waiting to be finalized.
 */
async function fullGC() {
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((r) => setTimeout(r, 10));
  }
  gc();
}
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** Runs fn once and returns { cpu, wall } in ms along with its value. */
async function measure(fn) {
  const c0 = cpuMs();
  const t0 = performance.now();
  const value = await fn();
  return { cpu: cpuMs() - c0, wall: performance.now() - t0, value };
}

async function main() {
  if (job.task === "import") {
    const t0 = performance.now();
    await import(job.file);
    return { ms: performance.now() - t0 };
  }

  if (job.task === "loop") {
    await fullGC();
    const baseline = process.memoryUsage().heapUsed;
    const mod = await import(job.file);
    const make = job.mode === "stream" ? mod.streamAgent : mod.jsonAgent;
    if (!make) throw new Error(`no ${job.mode} agent in ${job.file}`);
    const agent = make({ base: job.base });
    // Warm-up and measured loops are bounded by count and by time, so a slow SDK still
    // finishes within the run's budget (it then gets fewer, never less than minRuns, loops).
    // The heap is read after exactly heapLoops loops, the same number for every SDK.
    const w0 = performance.now();
    let warmed = 0;
    let heapKept;
    const minWarm = Math.max(job.minRuns, job.heapLoops);
    // The first conversations are timed too: until the JIT has compiled the SDK and undici
    // (~100-150 conversations on the bench machine) they cost 2-3x the steady state, which
    // is what a short-lived process pays; the measured loops below come after that.
    const cold = [];
    for (let i = 0; i < Math.max(job.warmup, minWarm) && (i < minWarm || performance.now() - w0 < job.warmupMs); i++, warmed++) {
      const m = await measure(() => agent.run());
      const text = m.value;
      if (i < (job.coldRuns ?? 0)) cold.push(m.cpu);
      if (!String(text).endsWith(job.expect)) throw new Error(`unexpected answer ${JSON.stringify(text)}`);
      if (i + 1 === job.heapLoops) {
        await fullGC();
        heapKept = process.memoryUsage().heapUsed - baseline;
      }
    }
    const cpu = [];
    const wall = [];
    const m0 = performance.now();
    for (let i = 0; i < job.runs && (i < job.minRuns || performance.now() - m0 < job.runsMs); i++) {
      const m = await measure(() => agent.run());
      if (!String(m.value).endsWith(job.expect)) throw new Error(`unexpected answer ${JSON.stringify(m.value)}`);
      cpu.push(m.cpu);
      wall.push(m.wall);
    }
    return { cpu, wall, cold, loops: warmed + cpu.length, heapKept, peakRss: process.resourceUsage().maxRSS * 1024, keep: agent !== undefined };
  }

  if (job.task === "decode") {
    // Progress lines ("@{...}") let the parent keep what finished if it has to stop a run
    // that grows too slowly (quadratic decoders), and say which size was running then.
    const progress = (line) => process.stdout.write(`@${JSON.stringify(line)}\n`);
    const mod = await import(job.file);
    // Warm-up on the small response: up to `warmup` calls, stopping early after warmupMs.
    const w0 = performance.now();
    for (let i = 0; i < job.warmup && (i < 2 || performance.now() - w0 < job.warmupMs); i++) await mod.decode({ base: job.warmupBase });
    const walls = {};
    const one = async ({ key, base, expect }) => {
      progress({ start: key, at: performance.now() });
      const m = await measure(() => mod.decode({ base }));
      if (m.value !== expect) throw new Error(`${key}: consumed ${m.value} characters, expected ${expect}`);
      progress({ key, cpu: m.cpu, wall: m.wall });
      (walls[key] ??= []).push(m.wall);
    };
    // Sizes alternate inside the process (2k, 20k, 2k, 20k) so both see the same JIT state.
    for (let r = 0; r < job.reps; r++) for (const size of job.sizes) await one(size);
    if (job.big) {
      const last = job.sizes[job.sizes.length - 1].key;
      const w = walls[last].slice().sort((a, b) => a - b)[Math.floor(walls[last].length / 2)];
      if (w * 10 <= job.bigBudgetMs) await one(job.big);
      else progress({ skipped: job.big.key, reason: `${last} took ${Math.round(w)} ms` });
    }
    return { done: true };
  }
  throw new Error(`unknown task ${job.task}`);
}

main().then(
  (result) => {
    process.stdout.write(`\n${JSON.stringify(result)}\n`);
    // Some SDKs keep sockets or timers alive; the measurement is done.
    process.exit(0);
  },
  (err) => {
    process.stderr.write(`${err?.stack ?? err}\n`);
    process.exit(1);
  },
);
