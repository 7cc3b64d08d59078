// Prompt caching on Claude over real HTTP against the caching-aware mock: where the
// breakpoints go, the 4-breakpoint limit (counting the caller's own), "off" and the 1-hour
// TTL, byte-identical tools and system from step to step and across setTools of the same
// set, and usage that reports what the cache served.

import * as v from "valibot";
import { afterEach, describe, expect, it } from "vitest";
import { type ClaudeOptions, claude } from "../../adapters/claude/index.js";
import { createClient, isToolloopError, type Message, tool } from "../../src/index.js";
import type { StreamEvent } from "../../src/loop/index.js";
import { type ClaudeMock, createPromptCache, type MockTurn, startClaudeMock, validateRequest } from "../mock/claude.js";
import { specValidator } from "./helpers.js";

const mocks: ClaudeMock[] = [];
afterEach(async () => {
  await Promise.all(mocks.splice(0).map((m) => m.close()));
});

async function setup(script: MockTurn[], options: Partial<ClaudeOptions> = {}, cacheMinTokens = 1) {
  const mock = await startClaudeMock({ script, cacheMinTokens });
  mocks.push(mock);
  return { mock, provider: claude({ apiKey: "k", model: "claude-test", baseURL: mock.url, maxRetries: 0, ...options }) };
}

const makeTools = () => [
  tool({ name: "get_weather", description: "Weather for a city.", input: v.object({ city: v.string() }), run: ({ city }) => `${city}: 21°C` }),
  tool({ name: "get_time", description: "Time in a city.", input: v.object({ city: v.string() }), run: () => "12:00" }),
];
const SYSTEM = "You are a weather assistant. Use the tools. ".repeat(40);
const steps: MockTurn[] = [
  { toolCalls: [{ name: "get_weather", input: { city: "Paris" } }] },
  {
    toolCalls: [
      { name: "get_time", input: { city: "Paris" } },
      { name: "get_weather", input: { city: "Rome" } },
    ],
  },
  { text: "Paris 21°C at noon, Rome 21°C." },
];

type Body = { tools?: Record<string, unknown>[]; system?: unknown; messages: { role: string; content: Record<string, unknown>[] }[] };

/** Where the breakpoints are: "tools.N", "system.N", "messages.N.content.M". */
function marks(body: Body): string[] {
  const out: string[] = [];
  body.tools?.forEach((t, i) => t.cache_control && out.push(`tools.${i}`));
  if (Array.isArray(body.system)) (body.system as Record<string, unknown>[]).forEach((b, i) => b.cache_control && out.push(`system.${i}`));
  body.messages.forEach((m, i) => m.content.forEach((b, j) => b.cache_control && out.push(`messages.${i}.content.${j}`)));
  return out;
}

const createParams = specValidator("CreateMessageParams");

describe("breakpoint placement (cache: auto, the default)", () => {
  it("system prefix, newest message, the previous step's newest message and the last tool; at most 4, spec-valid", async () => {
    const { mock, provider } = await setup(steps);
    const client = createClient({ provider, tools: makeTools(), systemPrompt: SYSTEM });
    expect(await client.chat("Weather and time in Paris, and Rome?")).toBe("Paris 21°C at noon, Rome 21°C.");
    const bodies = mock.requests.map((r) => r.body as Body);
    expect(bodies[0]!.system).toEqual([{ type: "text", text: SYSTEM, cache_control: { type: "ephemeral" } }]);
    expect(marks(bodies[0]!)).toEqual(["tools.1", "system.0", "messages.0.content.0"]);
    expect(marks(bodies[1]!)).toEqual(["tools.1", "system.0", "messages.0.content.0", "messages.2.content.0"]);
    // step 3: the newest message (two tool results: the last one) and the previous step's newest
    expect(marks(bodies[2]!)).toEqual(["tools.1", "system.0", "messages.2.content.0", "messages.4.content.1"]);
    for (const b of bodies) {
      expect(marks(b).length).toBeLessThanOrEqual(4);
      expect(createParams(b)).toEqual([]);
    }
    // the history itself never gets cache_control
    expect(JSON.stringify(client.history)).not.toContain("cache_control");
  });

  it("without a system prompt the last tool ends the prefix; without tools only messages are marked", async () => {
    const { mock, provider } = await setup([{ text: "a" }, { text: "b" }]);
    await createClient({ provider, tools: makeTools() }).chat("hi");
    expect(marks(mock.requests[0]!.body as Body)).toEqual(["tools.1", "messages.0.content.0"]);
    await createClient({ provider }).chat("hi");
    expect(marks(mock.requests[1]!.body as Body)).toEqual(["messages.0.content.0"]);
    expect((mock.requests[1]!.body as Body).system).toBeUndefined();
  });

  it("a thinking block is never marked (the API refuses it); the mark goes to the block before", async () => {
    const { mock, provider } = await setup([{ text: "x" }]);
    const history: Message[] = [
      { role: "user", content: "q" },
      {
        role: "assistant",
        content: "a",
        providerData: {
          provider: "claude",
          value: [
            { type: "text", text: "a" },
            { type: "thinking", thinking: "t", signature: "s" },
          ],
        },
      },
    ];
    const r = await provider.generate({ messages: history, tools: [], webSearch: false });
    expect(r.text).toBe("x");
    expect(marks(mock.requests[0]!.body as Body)).toEqual(["messages.0.content.0", "messages.1.content.0"]);
  });
});

describe("the 4-breakpoint limit counts the caller's own", () => {
  const stored = (n: number) => Array.from({ length: n }, (_, i) => ({ type: "text", text: `part ${i}`, cache_control: { type: "ephemeral" } }));
  for (const own of [1, 2, 3, 4]) {
    it(`${own} breakpoint(s) already in a replayed turn: the adapter adds at most ${4 - own}`, async () => {
      const { mock, provider } = await setup([{ text: "ok" }]);
      const history: Message[] = [
        { role: "user", content: "q" },
        { role: "assistant", content: "parts", providerData: { provider: "claude", value: stored(own) } },
        { role: "user", content: "next" },
      ];
      const client = createClient({ provider, tools: makeTools(), systemPrompt: SYSTEM, history });
      expect(await client.chat("go")).toBe("ok");
      const body = mock.requests[0]!.body as Body;
      expect(marks(body)).toHaveLength(4);
      expect(validateRequest(body as never)).toBeUndefined();
    });
  }

  it("the mock refuses a fifth breakpoint and a 1h one after a 5m one (the checks are real)", () => {
    const cc = { type: "ephemeral" };
    const five = {
      model: "m",
      max_tokens: 1,
      messages: [{ role: "user", content: Array.from({ length: 5 }, (_, i) => ({ type: "text", text: `t${i}`, cache_control: cc })) }],
    };
    expect(validateRequest(five)).toBe("A maximum of 4 blocks with cache_control may be provided. Found 5.");
    const order = {
      model: "m",
      max_tokens: 1,
      system: [{ type: "text", text: "s", cache_control: cc }],
      messages: [{ role: "user", content: [{ type: "text", text: "u", cache_control: { type: "ephemeral", ttl: "1h" } }] }],
    };
    expect(validateRequest(order)).toMatch(/ttl='1h' cache_control block must not come after/);
  });
});

describe("cache: off and the 1-hour TTL", () => {
  it('"off" sends no cache_control and the system prompt as a string', async () => {
    const { mock, provider } = await setup([{ text: "ok" }], { cache: "off" });
    await createClient({ provider, tools: makeTools(), systemPrompt: SYSTEM }).chat("hi");
    const body = mock.requests[0]!.body as Body;
    expect(JSON.stringify(body)).not.toContain("cache_control");
    expect(body.system).toBe(SYSTEM);
  });

  it('{ ttl: "1h" } marks every breakpoint with ttl 1h (no beta header: ttl is in the GA schema), and the mock bills 1h writes', async () => {
    const { mock, provider } = await setup([{ text: "ok" }], { cache: { ttl: "1h" } });
    const client = createClient({ provider, tools: makeTools(), systemPrompt: SYSTEM });
    await client.chat("hi");
    const body = mock.requests[0]!.body as Body;
    const controls = JSON.stringify(body).match(/"cache_control":\{[^}]*\}/g)!;
    expect(controls.length).toBe(3);
    expect(new Set(controls)).toEqual(new Set(['"cache_control":{"type":"ephemeral","ttl":"1h"}']));
    expect(mock.requests[0]!.headers["anthropic-beta"]).toBeUndefined();
    expect(createParams(body)).toEqual([]);
    expect(client.lastRun!.usage.cacheWriteTokens).toBeGreaterThan(0);
  });

  it("a cache setting that is none of these is an InvalidOptionsError", () => {
    for (const cache of ["on", { ttl: "2h" }, null, 5]) {
      let err: unknown;
      try {
        claude({ apiKey: "k", model: "m", cache: cache as never });
      } catch (e) {
        err = e;
      }
      expect(isToolloopError(err, "invalid_options")).toBe(true);
    }
  });
});

describe("byte-identical prefixes", () => {
  it("tools and system have the same bytes in every step, and after setTools of the same set (new tool objects)", async () => {
    const { mock, provider } = await setup([...steps, { text: "again" }]);
    const client = createClient({ provider, tools: makeTools(), systemPrompt: SYSTEM });
    await client.chat("Weather and time in Paris, and Rome?");
    client.setTools(makeTools());
    await client.chat("Once more.");
    const prefixes = mock.requests.map((r) => JSON.stringify({ tools: (r.body as Body).tools, system: (r.body as Body).system }));
    expect(prefixes).toHaveLength(4);
    expect(new Set(prefixes).size).toBe(1);
  });
});

describe("usage from the caching-aware mock", () => {
  it("each step reads the previous step's prompt from cache; inputTokens is the whole prompt", async () => {
    const { mock, provider } = await setup(steps);
    const client = createClient({ provider, tools: makeTools(), systemPrompt: SYSTEM });
    const finishes: Extract<StreamEvent, { type: "step-finish" }>[] = [];
    for await (const e of client.stream("Weather and time in Paris, and Rome?")) if (e.type === "step-finish") finishes.push(e);
    expect(finishes).toHaveLength(3);
    const [s1, s2, s3] = finishes.map((f) => f.usage);
    expect(s1!.cacheReadTokens).toBe(0);
    expect(s1!.cacheWriteTokens).toBeGreaterThan(0);
    // step 2 reads all of step 1's prompt (it was written at step 1's newest-message breakpoint)
    expect(s2!.cacheReadTokens).toBe(s1!.cacheWriteTokens);
    expect(s3!.cacheReadTokens).toBe(s2!.cacheReadTokens! + s2!.cacheWriteTokens!);
    for (const u of [s1!, s2!, s3!]) expect(u.inputTokens).toBeGreaterThan(u.cacheReadTokens! + u.cacheWriteTokens!);
    const t = mock.cache.totals;
    expect(t.requests).toBe(3);
    expect(client.lastRun!.usage.inputTokens).toBe(t.input + t.cacheRead + t.cacheWrite);
    expect(client.lastRun!.usage.cacheReadTokens).toBe(t.cacheRead);
  });

  it('with cache: "off" nothing is read or written', async () => {
    const { mock, provider } = await setup(steps, { cache: "off" });
    await createClient({ provider, tools: makeTools(), systemPrompt: SYSTEM }).chat("Weather and time in Paris, and Rome?");
    expect(mock.cache.totals).toMatchObject({ cacheRead: 0, cacheWrite: 0, requests: 3 });
  });

  it("a prefix below the minimum is not cached (as the API does it: no error, no write)", async () => {
    const { mock, provider } = await setup([{ text: "a" }], {}, 1_000_000);
    await createClient({ provider }).chat("short");
    expect(mock.cache.totals).toMatchObject({ cacheRead: 0, cacheWrite: 0 });
  });

  it("createPromptCache alone: a moved breakpoint still reads the earlier prefix; a changed byte misses", () => {
    const cache = createPromptCache({ minTokens: 1 });
    const cc = { type: "ephemeral" };
    const user = (text: string, mark: boolean) => ({ role: "user", content: [{ type: "text", text, ...(mark ? { cache_control: cc } : {}) }] });
    const first = cache.usage({ model: "m", messages: [user("a".repeat(400), true)] });
    expect(first.cache_read_input_tokens).toBe(0);
    const second = cache.usage({
      model: "m",
      messages: [user("a".repeat(400), false), { role: "assistant", content: [{ type: "text", text: "b" }] }, user("c", true)],
    });
    expect(second.cache_read_input_tokens).toBe(first.cache_creation_input_tokens);
    const changed = cache.usage({ model: "m", messages: [user("A" + "a".repeat(399), true)] });
    expect(changed.cache_read_input_tokens).toBe(0);
  });
});

describe("a 20-step loop", () => {
  it("most of its input is served from cache (the real 1,024-token minimum), none with cache off", async () => {
    const script = (_: unknown, i: number): MockTurn =>
      i < 19 ? { text: `Step ${i + 1}.`, toolCalls: [{ name: "get_weather", input: { city: `City ${i}` } }] } : { text: "All done." };
    const share = async (cache: ClaudeOptions["cache"]) => {
      const mock = await startClaudeMock({ script });
      mocks.push(mock);
      const provider = claude({ apiKey: "k", model: "claude-test", baseURL: mock.url, maxRetries: 0, cache });
      const client = createClient({ provider, tools: makeTools(), systemPrompt: SYSTEM, maxSteps: 25 });
      expect(await client.chat("Weather in twenty cities, one at a time.")).toBe("All done.");
      const u = client.lastRun!.usage;
      expect(u.inputTokens).toBe(mock.cache.totals.input + mock.cache.totals.cacheRead + mock.cache.totals.cacheWrite);
      return u.cacheReadTokens! / u.inputTokens;
    };
    const auto = await share("auto");
    // about 0.70 here: the first steps' prompts are below the minimum and not cached at all
    expect(auto).toBeGreaterThan(0.6);
    expect(await share("off")).toBe(0);
  });
});

describe("reasoning-delta from thinking", () => {
  it("thinking_delta streams as reasoning-delta; the thinking block and its signature still round-trip", async () => {
    const { mock, provider } = await setup(
      [{ thinking: "Paris first, then answer.", toolCalls: [{ name: "get_weather", input: { city: "Paris" } }] }, { text: "21°C." }],
      { thinking: { budgetTokens: 1024 }, maxTokens: 2048 },
    );
    const client = createClient({ provider, tools: makeTools() });
    const reasoning: string[] = [];
    for await (const e of client.stream("Weather?")) if (e.type === "reasoning-delta") reasoning.push(e.text);
    expect(reasoning.join("")).toBe("Paris first, then answer.");
    expect(reasoning.length).toBeGreaterThan(1);
    // the mock refuses a tool turn whose thinking signature was altered or lost
    expect(mock.requests).toHaveLength(2);
    expect((mock.requests[1]!.body as Body).messages[1]!.content[0]).toMatchObject({ type: "thinking", thinking: "Paris first, then answer." });
  });
});
