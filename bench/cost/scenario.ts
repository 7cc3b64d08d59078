// The cost scenarios of bench/cost.mjs, bundled by it from the repo sources (so the Claude mock,
// a TypeScript test helper, runs in plain Node): the benchmark's 20-step loop (5 parallel
// get_weather calls a step, then the answer) against the caching-aware Claude mock, and the
// per-run CPU that pricing, tracer, compaction and fallback() add to a loop that uses them.
import * as v from "valibot";
import { claude } from "../../adapters/claude/index.js";
import {
  type ClientOptions,
  compaction,
  createClient,
  fallback,
  type Message,
  type ModelResponse,
  type Provider,
  type Tracer,
  tool,
  tracing,
} from "../../src/index.js";
import { startClaudeMock } from "../../test/mock/claude.js";
import { PROMPT, SYSTEM, TOOL_DESCRIPTION, TOOL_NAME, TOOL_OUTPUT } from "../agents/common.mjs";

export const STEPS = 20;
export const CALLS = 5;
const FINAL = "All 100 readings are in: it is sunny everywhere.";
/** Claude Sonnet 4.5 list prices, USD per million tokens (5-minute cache writes). */
export const SONNET = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };

const weather = tool({
  name: TOOL_NAME,
  description: TOOL_DESCRIPTION,
  input: v.object({ city: v.pipe(v.string(), v.description("City name.")) }),
  run: async () => TOOL_OUTPUT,
});
const cities = (step: number) => Array.from({ length: CALLS }, (_, i) => `City ${step}-${i}`);

export interface CacheFigures {
  cache: string;
  requests: number;
  inputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** cacheRead / all prompt tokens, over the whole run. */
  share: number;
  costUSD: number;
  compactions: number;
}

/** The 20-step loop over real HTTP against the caching-aware Claude mock. */
export async function cacheRun(cache: "auto" | "off", extra: Partial<ClientOptions> = {}): Promise<CacheFigures> {
  let steps = 0;
  const mock = await startClaudeMock({
    script: (body) => {
      if ((body as { tool_choice?: { type?: string } }).tool_choice?.type === "none") return { text: `Checked ${steps * CALLS} cities so far, all sunny.` };
      const step = steps++;
      return step < STEPS ? { text: "Checking every city.", toolCalls: cities(step).map((city) => ({ name: TOOL_NAME, input: { city } })) } : { text: FINAL };
    },
  });
  try {
    const client = createClient({
      provider: claude({ apiKey: "bench-key", model: "claude-sonnet-4-5", baseURL: mock.url, cache }),
      systemPrompt: SYSTEM,
      tools: [weather],
      maxSteps: 25,
      parallelTools: true,
      pricing: SONNET,
      ...extra,
    });
    let compactions = 0;
    for await (const e of client.stream(PROMPT)) if (e.type === "compaction") compactions++;
    const u = client.lastRun!.usage;
    const t = mock.cache.totals;
    return {
      cache,
      requests: t.requests,
      inputTokens: u.inputTokens,
      cacheReadTokens: u.cacheReadTokens ?? 0,
      cacheWriteTokens: u.cacheWriteTokens ?? 0,
      share: t.cacheRead / (t.input + t.cacheWrite + t.cacheRead),
      costUSD: u.cost ?? 0,
      compactions,
    };
  } finally {
    await mock.close();
  }
}

/** A provider with no I/O and no copying: the loop's own work is all that is measured. */
function canned(): Provider {
  const usage = { inputTokens: 120, outputTokens: 40 };
  return {
    name: "canned",
    model: "canned",
    async generate(request): Promise<ModelResponse> {
      let step = 0;
      for (const m of request.messages as Message[]) if (m.role === "tool") step++;
      if (step >= STEPS) return { text: FINAL, toolCalls: [], finishReason: "stop", usage };
      const toolCalls = cities(step).map((city, i) => ({ id: `c${step}_${i}`, name: TOOL_NAME, arguments: JSON.stringify({ city }) }));
      return { text: "Checking every city.", toolCalls, finishReason: "tool-calls", usage };
    },
  };
}

/** A tracer that records nothing: the figure is toolloop's side of tracing, not an SDK's. */
const noopSpan = { setAttribute: () => noopSpan, setStatus: () => noopSpan, recordException: () => {}, end: () => {} };
const noopTracer: Tracer = { startSpan: () => noopSpan };

export const VARIANTS: Record<string, () => Partial<ClientOptions> & { provider: Provider }> = {
  plain: () => ({ provider: canned() }),
  pricing: () => ({ provider: canned(), pricing: SONNET }),
  tracer: () => ({ provider: canned(), tracer: tracing(noopTracer) }),
  // A limit the run never reaches: what the per-request estimate costs.
  compaction: () => ({ provider: canned(), compaction: compaction({ maxInputTokens: 1e9 }) }),
  "fallback([p, q])": () => ({ provider: fallback([canned(), canned()]) }),
  all: () => ({ provider: fallback([canned(), canned()]), pricing: SONNET, tracer: tracing(noopTracer), compaction: compaction({ maxInputTokens: 1e9 }) }),
};

/** CPU µs of one 20-step run of the variant (median of `runs`, after `warmup`). */
export async function loopCPU(variant: string, runs: number, warmup: number): Promise<number> {
  const make = VARIANTS[variant]!;
  const once = async () => {
    const client = createClient({ systemPrompt: SYSTEM, tools: [weather], maxSteps: 25, parallelTools: true, ...make() });
    const text = await client.chat(PROMPT);
    if (text !== FINAL) throw new Error(`unexpected answer: ${text}`);
  };
  for (let i = 0; i < warmup; i++) await once();
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = process.cpuUsage();
    await once();
    const d = process.cpuUsage(t);
    samples.push(d.user + d.system);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)]!;
}
export { compaction } from "../../src/index.js";
