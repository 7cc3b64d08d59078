// RESULTS.md from one run's raw results. Every ratio is computed per round (the SDK and the
// hand-written loop measured next to each other) and the median of those ratios is shown.

import { FORMAT_NAMES, isFile, loopModes, SDKS, sizeExport } from "./sdks.mjs";
import { fmt, kib, mb, median, ratio } from "./stats.mjs";
import { FORMATS } from "./wire.mjs";

// Issue 24's decisions: the 16 KiB size target is retired (the rule is that a feature an agent
// does not use costs it 0 B, and a minimal agent stays far below every peer: test/size holds the
// budget, 26.5 KiB for the largest format); loop CPU is at most 1.3x the hand-written loop in
// every cell, and ahead of every peer.
export const TARGETS = {
  gzip: 26.5 * 1024,
  loopRatio: 1.3,
  decodeRatio: 1.5,
  heapKept: 5e6,
  importMs: 30,
};
/** Cost per 10× more events that still counts as linear (10× plus room for noise and GC). */
const LINEAR = 13;

const peers = SDKS.filter((s) => s.id !== "toolloop" && s.id !== "raw");
const sdkById = Object.fromEntries(SDKS.map((s) => [s.id, s]));

function na(sdk, format) {
  const f = sdk.files[format];
  return isFile(f) ? undefined : f.replace(/^—\s*/, "");
}

// ---------------------------------------------------------------- derived figures
export function derive(results) {
  const loop = {};
  for (const [key, cell] of Object.entries(results.loops)) {
    const [id, format, mode] = key.split(":");
    const raw = results.loops[`raw:${format}:${mode}`];
    const ratios = cell.rounds.map((r, i) => (r && raw?.rounds[i] ? r.cpu / raw.rounds[i].cpu : NaN));
    const coldRatios = cell.rounds.map((r, i) => (r?.cold && raw?.rounds[i]?.cold ? r.cold / raw.rounds[i].cold : NaN));
    loop[key] = {
      cpu: median(cell.rounds.map((r) => r?.cpu)),
      cold: median(cell.rounds.map((r) => r?.cold)),
      coldRatio: median(coldRatios),
      wall: median(cell.rounds.map((r) => r?.wall)),
      ratio: median(ratios),
      heapKept: median(cell.rounds.map((r) => r?.heapKept)),
      loops: median(cell.rounds.map((r) => r?.loops)),
      peakRss: median(cell.rounds.map((r) => r?.peakRss)),
      id,
      format,
      mode,
    };
  }
  const decode = {};
  for (const [key, cell] of Object.entries(results.decode)) {
    const [id, format, kind] = key.split(":");
    const raw = results.decode[`raw:${format}:${kind}`];
    const at = (r, n) => r?.[String(n)]?.cpu;
    const ratios = cell.rounds.map((r, i) => at(r, 20000) / at(raw?.rounds[i], 20000));
    const grow1 = cell.rounds.map((r) => at(r, 20000) / at(r, 2000));
    const grow2 = cell.rounds.map((r) => at(r, 200000) / at(r, 20000));
    const timeout = cell.timeouts?.["20000"];
    decode[key] = {
      id,
      format,
      kind,
      cpu2k: median(cell.rounds.map((r) => at(r, 2000))),
      cpu20k: median(cell.rounds.map((r) => at(r, 20000))),
      cpu200k: median(cell.rounds.map((r) => at(r, 200000))),
      ratio: median(ratios),
      grow1: median(grow1),
      grow2: median(grow2),
      timeout,
      timeout2k: cell.timeouts?.["2000"],
      rawCpu20k: median((raw?.rounds ?? []).map((r) => at(r, 20000))),
      notes: cell.notes,
    };
  }
  const imports = Object.fromEntries(Object.entries(results.imports).map(([k, v]) => [k, median(v)]));
  return { loop, decode, imports, sizes: results.sizes };
}

// ---------------------------------------------------------------- the markdown
export function renderReport(results, env) {
  const d = derive(results);
  const out = [];
  const line = (s = "") => out.push(s);
  const table = (head, rows) => {
    line(`| ${head.join(" | ")} |`);
    line(`|${head.map((_, i) => (i === 0 ? " --- " : " ---: ")).join("|")}|`);
    for (const r of rows) line(`| ${r.join(" | ")} |`);
    line();
  };
  /** A table with a row per SDK and a column per format; `cell(sdk, format)` fills each cell. */
  const sdkTable = (cell, formats = FORMATS) =>
    table(
      ["SDK", ...formats.map((f) => FORMAT_NAMES[f])],
      SDKS.map((sdk) => [sdk.name, ...formats.map((f) => cell(sdk, f))]),
    );

  line("# toolloop benchmarks");
  line();
  if (env.quick) line("> **Quick run (BENCH_QUICK=1): too few rounds to quote. Run `npm run bench` for the real figures.**\n");
  line(`Measured ${env.date} by \`npm run bench\` (${fmt(env.minutes, 1)} min) on ${env.machine}, Node ${env.node}.`);
  line("Every figure below comes from this one run; each comparison is a ratio of runs made next to each other");
  line("(A B A B, each SDK in its own child process, the order reversed every other round), against a local mock");
  line("server with no latency. Lower is better everywhere.");
  line(`Machine load (1-minute average) at the start and end of the run: ${fmt(env.load[0], 2)} / ${fmt(env.load[1], 2)} on ${env.cores} cores; other`);
  line("processes inflate the absolute milliseconds, the interleaved ratios much less.");
  line("How each figure is measured, and where toolloop misses a target and why: [README.md](README.md) (dated notes,");
  line("kept by hand; this file is rewritten by every run).");
  line();
  line(`toolloop ${env.toolloop}, bundled from the repo sources.`);
  line();
  table(
    ["package", "version"],
    Object.entries(env.versions).map(([k, v]) => [`\`${k}\``, v]),
  );

  // ---- summary
  const tl = (pred) => Object.values(d.loop).filter((x) => x.id === "toolloop" && pred(x));
  const worst = (xs, f) => xs.reduce((a, x) => (Number.isFinite(f(x)) && (!a || f(x) > f(a)) ? x : a), undefined);
  const sizeRows = Object.entries(d.sizes).map(([k, v]) => ({ id: k.split(":")[0], format: k.split(":")[1], ...v }));
  const tlSize = worst(
    sizeRows.filter((x) => x.id === "toolloop"),
    (x) => x.gzip,
  );
  const peerSize = sizeRows.filter((x) => peers.some((p) => p.id === x.id));
  const bestPeerSize = peerSize.reduce((a, x) => (!a || x.gzip < a.gzip ? x : a), undefined);
  const tlLoop = worst(
    tl(() => true),
    (x) => x.ratio,
  );
  const peerLoop = Object.values(d.loop).filter((x) => peers.some((p) => p.id === x.id) && Number.isFinite(x.ratio));
  const rangeOf = (xs, f, show) => {
    const v = xs.map(f).filter(Number.isFinite);
    return v.length ? `${show(Math.min(...v))} – ${show(Math.max(...v))}` : "—";
  };
  const tlDecode = Object.values(d.decode).filter((x) => x.id === "toolloop");
  const tlDecodeWorst = worst(tlDecode, (x) => x.ratio);
  const peerDecode = Object.values(d.decode).filter((x) => peers.some((p) => p.id === x.id));
  const tlGrow = Math.max(...tlDecode.flatMap((x) => [x.grow1, x.grow2]).filter(Number.isFinite));
  const tlHeap = worst(
    tl((x) => x.mode === "json"),
    (x) => x.heapKept,
  );
  const rawHeap = median(
    Object.values(d.loop)
      .filter((x) => x.id === "raw" && x.mode === "json")
      .map((x) => x.heapKept),
  );
  const peerHeap = Object.values(d.loop).filter(
    (x) => peers.some((p) => p.id === x.id) && x.mode === (sdkById[x.id].modes.includes("json") ? "json" : "stream"),
  );
  const importRows = Object.entries(d.imports).map(([k, v]) => ({ id: k.split(":")[0], format: k.split(":")[1], ms: v }));
  const tlImport = worst(
    importRows.filter((x) => x.id === "toolloop"),
    (x) => x.ms,
  );
  const rawImport = median(importRows.filter((x) => x.id === "raw").map((x) => x.ms));
  const peerImport = importRows.filter((x) => peers.some((p) => p.id === x.id));
  const met = (ok) => (ok === undefined ? "—" : ok ? "met" : "**missed**");
  const where = (x) => (x ? ` (${FORMAT_NAMES[x.format]}${x.mode ? `, ${x.mode}` : ""}${x.kind ? `, ${x.kind}` : ""})` : "");

  line("## Summary");
  line();
  line("toolloop's worst case over the four provider formats, against the target and the peers measured in this run.");
  line();
  table(
    ["figure", "target", "toolloop (worst format)", "hand-written floor", "peers (range)", "target"],
    [
      [
        "minimal agent, gzip",
        `≤ ${kib(TARGETS.gzip)}`,
        `${kib(tlSize?.gzip)}${where(tlSize)}`,
        kib(median(sizeRows.filter((x) => x.id === "raw").map((x) => x.gzip))),
        `${rangeOf(peerSize, (x) => x.gzip, kib)} (smallest: ${bestPeerSize ? sdkById[bestPeerSize.id].name : "—"})`,
        met(tlSize ? tlSize.gzip <= TARGETS.gzip : undefined),
      ],
      [
        "loop CPU vs hand-written",
        `≤ ${ratio(TARGETS.loopRatio)}`,
        `${ratio(tlLoop?.ratio)}${where(tlLoop)}`,
        "1.00×",
        rangeOf(peerLoop, (x) => x.ratio, ratio),
        met(tlLoop ? tlLoop.ratio <= TARGETS.loopRatio : undefined),
      ],
      [
        "SSE decode vs eventsource-parser + JSON.parse (20k events)",
        `≤ ${ratio(TARGETS.decodeRatio)}, linear`,
        `${ratio(tlDecodeWorst?.ratio)}${where(tlDecodeWorst)}; cost per 10× events ≤ ${fmt(tlGrow, 1)}×`,
        "1.00×",
        rangeOf(
          peerDecode,
          (x) => (x.timeout ? Infinity : x.ratio),
          (v) => (v === Infinity ? "timeout" : ratio(v)),
        ),
        met(tlDecodeWorst ? tlDecodeWorst.ratio <= TARGETS.decodeRatio && tlGrow <= LINEAR : undefined),
      ],
      [
        "heap kept after warm-up",
        `≤ ${mb(TARGETS.heapKept)} MB`,
        `${mb(tlHeap?.heapKept)} MB${where(tlHeap)}`,
        `${mb(rawHeap)} MB`,
        `${rangeOf(peerHeap, (x) => x.heapKept, mb)} MB`,
        met(tlHeap ? tlHeap.heapKept <= TARGETS.heapKept : undefined),
      ],
      [
        "import time",
        `≤ ${TARGETS.importMs} ms`,
        `${fmt(tlImport?.ms)} ms${where(tlImport)}`,
        `${fmt(rawImport)} ms`,
        `${rangeOf(
          peerImport,
          (x) => x.ms,
          (v) => fmt(v),
        )} ms`,
        met(tlImport ? tlImport.ms <= TARGETS.importMs : undefined),
      ],
    ],
  );

  // ---- 1. size
  line("## 1. Bundle size of a minimal agent");
  line();
  line("One tool with a validated `{ city: string }` input and one tool-calling loop (JSON, not streaming, where the SDK");
  line("has both), bundled by esbuild: minified, platform browser, ESM, gzip level 9. Cells: gzip (minified).");
  line();
  sdkTable((sdk, f) => {
    const why = na(sdk, f) ?? (sizeExport(sdk, f) ? undefined : sdk.noLoop?.[f]?.replace(/^—\s*/, ""));
    if (why) return `n/a`;
    const s = d.sizes[`${sdk.id}:${f}`];
    if (!s) return "failed";
    return `${kib(s.gzip)} (${kib(s.minified)})${s.nodeImports.length ? ` ¹` : ""}`;
  });
  const nodeImp = Object.entries(d.sizes).filter(([, v]) => v.nodeImports.length);
  if (nodeImp.length) {
    line(
      `¹ The browser bundle still imports Node built-ins (${[...new Set(nodeImp.flatMap(([, v]) => v.nodeImports))].join(", ")}); they are left out of the size.`,
    );
    line();
  }

  // ---- 2. loop
  line("## 2. Loop overhead");
  line();
  line("One conversation = 20 model calls that each ask for 5 parallel `get_weather` calls, then a final answer (21 requests,");
  line("100 tool runs). CPU ms per conversation (`process.cpuUsage`, the SDK's process only; the mock server runs in the parent),");
  line(`median of the measured loops, which come after ${env.config.loop.warmup} warm-up conversations in the same process (the JIT has then`);
  line("compiled the SDK and undici); × = ratio to the hand-written fetch loop measured in the same round, median over rounds.");
  line(`The last table is the cold cost: the first ${env.config.loop.coldRuns} conversations of each process, while that compiling goes on.`);
  line();
  for (const mode of ["json", "stream"]) {
    line(`### ${mode === "json" ? "JSON responses" : "Streaming (SSE) responses"}`);
    line();
    line("Cells: × hand-written (CPU ms, wall ms).");
    line();
    sdkTable((sdk, f) => {
      if (na(sdk, f) || !loopModes(sdk, f).includes(mode)) return "n/a";
      const x = d.loop[`${sdk.id}:${f}:${mode}`];
      if (!x) return "failed";
      return `${sdk.id === "raw" ? "1.00×" : ratio(x.ratio)} (${fmt(x.cpu)}, ${fmt(x.wall)})`;
    });
  }
  line(`### Cold: the first ${env.config.loop.coldRuns} conversations of a process`);
  line();
  line("Cells: × hand-written, JSON / stream (CPU ms, JSON / stream).");
  line();
  sdkTable((sdk, f) => {
    const modes = na(sdk, f) ? [] : loopModes(sdk, f);
    if (!modes.length) return "n/a";
    const xs = ["json", "stream"].map((m) => (modes.includes(m) ? d.loop[`${sdk.id}:${f}:${m}`] : undefined));
    const r = (x) => (x ? (sdk.id === "raw" ? "1.00×" : ratio(x.coldRatio)) : "–");
    const c = (x) => (x ? fmt(x.cold) : "–");
    return `${r(xs[0])} / ${r(xs[1])} (${c(xs[0])} / ${c(xs[1])})`;
  });

  // ---- 3. decode
  line("## 3. Stream decode");
  line();
  line("One streamed response consumed through each SDK's own streaming API: 20,000 text-delta events, and one tool call");
  line("whose arguments arrive in 20,000 fragments. CPU ms at 20k events; × = ratio to eventsource-parser + JSON.parse over");
  line("the same bytes (the hand-written row), measured in the same round; 20k/2k and 200k/20k = how the cost grows with 10×");
  line("the events (≈ 10 is linear, ≈ 100 quadratic).");
  line();
  for (const kind of ["text", "args"]) {
    line(`### ${kind === "text" ? "Text deltas" : "Tool-call argument fragments"}`);
    line();
    line("Cells: × hand-written (CPU ms at 20k; 20k/2k; 200k/20k).");
    line();
    const formats = kind === "args" ? FORMATS.filter((f) => f !== "gemini") : FORMATS;
    sdkTable((sdk, f) => {
      if (na(sdk, f)) return "n/a";
      const x = d.decode[`${sdk.id}:${f}:${kind}`];
      if (!x) return "failed";
      if (x.timeout) return `> ${ratio(x.timeout / x.rawCpu20k)} (> ${fmt(x.timeout / 1000, 0)} s; 2k: ${fmt(x.cpu2k, 0)} ms)`;
      const r = sdk.id === "raw" ? "1.00×" : ratio(x.ratio);
      return `${r} (${fmt(x.cpu20k)}; ${fmt(x.grow1, 1)}; ${Number.isFinite(x.grow2) ? fmt(x.grow2, 1) : "not run"})`;
    }, formats);
  }
  if (kind2note(d)) line(kind2note(d));
  line('The Gemini API sends a function call whole, so it has no argument-fragment case. "not run": the 200k-event');
  line(`response is only sent (in the last round) when the 20k one took at most ${env.config.decode.bigBudgetMs / 10} ms, to keep the run short.`);
  line();

  // ---- 4. memory + import
  line("## 4. Memory and import time");
  line();
  line(
    `Heap kept = \`heapUsed\` after exactly ${env.config.loop.heapLoops} conversations and a forced collection (\`gc()\` with timer turns between, so finalizers run; \`--expose-gc\`), minus \`heapUsed\``,
  );
  line("before the SDK was imported (MB = 10⁶ bytes): the SDK's code, its module sources and whatever it keeps between");
  line("conversations (the client object is kept alive). Peak RSS of that process (all its loops). Import = ms to `import()` the");
  line("agent module (the SDK entry points it uses) in a fresh process, median of interleaved rounds.");
  line();
  line("Cells: heap kept MB, JSON loop (streaming loop) · peak RSS MB · import ms.");
  line();
  sdkTable((sdk, f) => {
    if (na(sdk, f)) return "n/a";
    const j = d.loop[`${sdk.id}:${f}:json`];
    const s = d.loop[`${sdk.id}:${f}:stream`];
    const imp = d.imports[`${sdk.id}:${f}`];
    const heap = j || s ? `${j ? mb(j.heapKept) : "n/a"} (${s ? mb(s.heapKept) : "n/a"})` : "n/a";
    const rss = mb(Math.max(j?.peakRss ?? -Infinity, s?.peakRss ?? -Infinity));
    return `${heap} · ${rss} · ${fmt(imp)} ms`;
  });

  // ---- notes
  line("## Notes");
  line();
  const notes = new Set();
  for (const sdk of SDKS) {
    for (const f of FORMATS) {
      const why = na(sdk, f);
      if (why) notes.add(`${sdk.name}, ${FORMAT_NAMES[f]}: ${why}.`);
      else if (sdk.noLoop?.[f]) notes.add(`${sdk.name}, ${FORMAT_NAMES[f]}: ${sdk.noLoop[f].replace(/^—\s*/, "")} (measured for stream decode only).`);
    }
    if (sdk.noJSON) notes.add(`${sdk.name}: ${sdk.noJSON.replace(/^—\s*/, "")}; it has no JSON-mode loop.`);
  }
  for (const n of STATIC_NOTES) notes.add(n);
  for (const [_key, cell] of Object.entries(d.decode))
    for (const n of cell.notes ?? []) notes.add(`${sdkById[cell.id].name}, ${FORMAT_NAMES[cell.format]}, ${cell.kind}: ${n}.`);
  for (const f of results.failures) notes.add(`Failure: ${f}.`);
  for (const n of notes) line(`- ${n}`);
  line();
  const L = env.config.loop;
  const D = env.config.decode;
  line(
    `Settings: loop: up to ${L.warmup} warm-up loops (${L.warmupMs} ms) and up to ${L.runs} measured loops (${L.runsMs} ms, at least ${L.minRuns} each) per process, the first ${L.coldRuns} timed as cold, ${L.coreRounds} rounds for toolloop and the hand-written loop, ${L.peerRounds} for the peers; decode: up to ${D.warmup} warm-up calls on the 2k response (${D.warmupMs} ms), ${D.reps} reps per size per process, ${D.rounds} rounds, ${D.timeoutMs / 1000} s per process; import: ${env.config.importRounds} rounds.`,
  );
  return `${out.join("\n")}\n`;
}

function kind2note(d) {
  const slow = Object.values(d.decode).filter((x) => x.timeout);
  if (!slow.length) return "";
  return `"> N×": the 20k-event response did not finish within the per-process time limit (quadratic growth; see its 2k time). It was not run again in later rounds.\n`;
}

const STATIC_NOTES = [
  "Node 20: `ai` 7, `@ai-sdk/*` 4 and `openai` 7 declare `engines: node >= 22`, so the newest majors that support Node 20 are pinned (`ai` 6, `@ai-sdk/*` 3, `openai` 6). `@openai/agents` 0.15 and later need `openai` 7, so `@openai/agents` 0.14.3 is pinned.",
  "Every SDK validates the tool input against its schema (toolloop: valibot; AI SDK, openai, @anthropic-ai/sdk, @openai/agents: zod; pi-ai: TypeBox via `validateToolCall`). The hand-written loop only `JSON.parse`s it: it is the floor, not a peer.",
  "@anthropic-ai/sdk's toolRunner runs with `thread: false` (the whole history every turn, like every other SDK here); by default it would use a server-held message thread the mock does not implement.",
  "@mariozechner/pi-ai has no loop of its own; its agent is the loop its README shows (stream, `validateToolCall`, push `toolResult`s).",
  'Stream decode goes through each SDK\'s streaming API for one model call: toolloop `client.stream()` (maxSteps 1), AI SDK `streamText()` (one step), openai `chat.completions.stream()` / `responses.stream()`, @anthropic-ai/sdk `beta.messages.stream()`, pi-ai `stream*()`, @openai/agents `run(…, { stream: true })` with `toolUseBehavior: "stop_on_first_tool"`.',
];
