#!/usr/bin/env node
// One agent's loop in this process against the bench mock, for `node --cpu-prof`: builds the
// agent from the repo sources, runs warm-up conversations, then N measured ones, and prints
// CPU ms per conversation and the size of the last (largest) request body it sent. The mock
// runs in-process too, so a profile holds its time as well (node:http, the answer writes);
// compare toolloop with raw under the same run rather than reading absolute figures.
//
//   node bench/lib/profile-loop.mjs toolloop-anthropic json 100
//   node --cpu-prof --cpu-prof-dir=.tmp/prof bench/lib/profile-loop.mjs raw-gemini stream 100
//   node bench/lib/profile-loop.mjs --top .tmp/prof/CPU.*.cpuprofile       self time by function
//   node bench/lib/profile-loop.mjs --modules .tmp/prof/CPU.*.cpuprofile   self time by source module
//   WARM=n: warm-up conversations before the measured ones (default 30)
//   HEAP=.tmp/a.heapprofile node bench/lib/profile-loop.mjs …; … --top-heap .tmp/a.heapprofile
import { readFileSync } from "node:fs";
import { join } from "node:path";

/** `name file:line` of a profile node's function. */
const functionKey = (f) => `${f.functionName || "(anon)"} ${f.url.split("/").slice(-2).join("/")}:${f.lineNumber + 1}`;

/** The biggest entries of `totals` (key → amount), printed with `format`. */
function printTop(totals, format) {
  const rows = [...totals].sort((a, b) => b[1] - a[1]).slice(0, Number(process.argv[4] ?? 40));
  for (const [k, v] of rows) console.log(format(v), k);
  process.exit(0);
}

/** Self time (ms) of a .cpuprofile, summed by `keyOf(callFrame)`. */
function selfTime(file, keyOf) {
  const prof = JSON.parse(readFileSync(file, "utf8"));
  const dt = new Map();
  for (let i = 0; i < prof.samples.length; i++) dt.set(prof.samples[i], (dt.get(prof.samples[i]) ?? 0) + (prof.timeDeltas[i] ?? 0));
  const self = new Map();
  for (const n of prof.nodes) {
    const key = keyOf(n.callFrame);
    self.set(key, (self.get(key) ?? 0) + (dt.get(n.id) ?? 0) / 1000);
  }
  return self;
}

if (process.argv[2] === "--top-heap") {
  // Allocated bytes per function (self), biggest first.
  const { head } = JSON.parse(readFileSync(process.argv[3], "utf8"));
  const self = new Map();
  const walk = (n) => {
    const key = functionKey(n.callFrame);
    self.set(key, (self.get(key) ?? 0) + n.selfSize);
    n.children.forEach(walk);
  };
  walk(head);
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  console.log(`${(total / 1e6).toFixed(1)} MB sampled`);
  printTop(self, (b) => `${(b / 1e6).toFixed(2).padStart(8)} MB`);
}
/** For a function in a bundle esbuild built unminified: the source module it came from (its `// path` comment above). */
const modules = new Map();
function moduleOf(url, line) {
  if (!url.includes("/.build/")) return undefined;
  let starts = modules.get(url);
  if (!starts) {
    starts = [];
    readFileSync(new URL(url), "utf8")
      .split("\n")
      .forEach((l, i) => {
        const m = /^\/\/ (\S+\.(?:ts|mjs|js))$/.exec(l);
        if (m) starts.push([i, m[1].replace(/^.*node_modules\//, "")]);
      });
    modules.set(url, starts);
  }
  let name = "(bundle)";
  for (const [at, m] of starts) if (at <= line) name = m;
  return name;
}

const groupOf = (f) =>
  moduleOf(f.url, f.lineNumber) ??
  (f.url === ""
    ? f.functionName
    : f.url.includes("undici")
      ? "(undici)"
      : f.url.startsWith("node:")
        ? "(node internals)"
        : f.url.split("/").slice(-2).join("/"));
const ms = (v) => v.toFixed(1).padStart(8);
// Self time per source module of the agent bundle (and per group outside it), or per function.
if (process.argv[2] === "--modules") printTop(selfTime(process.argv[3], groupOf), ms);
if (process.argv[2] === "--top") printTop(selfTime(process.argv[3], functionKey), ms);

const [name = "toolloop-anthropic", mode = "json", n = "100"] = process.argv.slice(2);
const { benchDir } = await import("./paths.mjs");
const { buildRunnable } = await import("./bundle.mjs");
const { startMockServer } = await import("./mock-server.mjs");
const { FINAL_TEXT } = await import("./wire.mjs");
const dir = join(benchDir, ".build", "profile");
await buildRunnable([join(benchDir, "agents", `${name}.mjs`)], dir);
const server = await startMockServer();
let lastBody = "";
const fetch0 = globalThis.fetch;
globalThis.fetch = (url, init) => {
  if (typeof init?.body === "string") lastBody = init.body;
  return fetch0(url, init);
};
const mod = await import(join(dir, `${name}.mjs`));
const agent = (mode === "stream" ? mod.streamAgent : mod.jsonAgent)({ base: `${server.origin}/loop` });
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
for (let i = 0; i < Number(process.env.WARM ?? 30); i++) await agent.run();
// HEAP=file.heapprofile: a sampling profile of every allocation in the measured runs (collected
// objects included), by allocating function; read it with --top-heap.
const session = process.env.HEAP ? new (await import("node:inspector")).Session() : undefined;
const post = (method, params) => new Promise((ok, fail) => session.post(method, params, (err, res) => (err ? fail(err) : ok(res))));
if (session) {
  session.connect();
  await post("HeapProfiler.startSampling", { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
}
const c0 = cpu();
for (let i = 0; i < Number(n); i++) {
  const text = await agent.run();
  if (!String(text).endsWith(FINAL_TEXT)) throw new Error(`unexpected answer ${JSON.stringify(text)}`);
}
console.log(`${name} ${mode}: ${((cpu() - c0) / Number(n)).toFixed(2)} ms CPU per conversation; last body ${lastBody.length} B`);
if (session) {
  const { profile } = await post("HeapProfiler.stopSampling");
  (await import("node:fs")).writeFileSync(process.env.HEAP, JSON.stringify(profile));
}
if (process.env.BODY) console.log(lastBody);
await server.close();
