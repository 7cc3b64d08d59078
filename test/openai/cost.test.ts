// Long runs that stay cheap on OpenAI (issue 15): prompt_cache_key, a byte-identical tools +
// instructions prefix from step to step, reasoning summaries asked for where the model
// reasons and shown as reasoning-delta events, encrypted reasoning replayed.

import * as v from "valibot";
import { afterEach, describe, expect, it } from "vitest";
import { openai, openaiChat } from "../../adapters/openai/index.js";
import { createResponsesStreamDecoder } from "../../adapters/openai/responses-decode.js";
import type { Delta } from "../../src/conversation/provider.js";
import { createClient, type StreamEvent, tool } from "../../src/index.js";
import { type OpenAIMock, startOpenAIChatMock } from "../mock/openai-chat.js";
import { startOpenAIResponsesMock } from "../mock/openai-responses.js";
import { feedSSE, jsonLines, responsesSSE, splitResponsesStreams } from "./support/fixtures.js";
import { specValidator } from "./support/openapi.js";

const KEY = "sk-test-cost-1618033988";
const mocks: OpenAIMock[] = [];
afterEach(async () => {
  await Promise.all(mocks.splice(0).map((m) => m.close()));
});

const makeTools = () => [
  tool({
    name: "get_weather",
    description: "Weather in a city.",
    input: v.object({ city: v.string(), unit: v.optional(v.picklist(["c", "f"])) }),
    run: async () => "21",
  }),
  tool({ name: "get_time", description: "Local time.", input: v.object({ city: v.string() }), run: async () => "12:00" }),
];
const threeSteps = [
  { toolCalls: [{ id: "c1", name: "get_weather", input: { city: "Paris", unit: null } }] },
  { toolCalls: [{ id: "c2", name: "get_time", input: { city: "Paris" } }] },
  { text: "done" },
];

async function collect(stream: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const out: StreamEvent[] = [];
  for await (const e of stream) out.push(e);
  return out;
}

describe("prompt caching", () => {
  it("promptCacheKey is sent as prompt_cache_key on both APIs (valid per the OpenAPI document)", async () => {
    const chat = await startOpenAIChatMock({ apiKey: KEY });
    const resp = await startOpenAIResponsesMock({ apiKey: KEY });
    mocks.push(chat, resp);
    await createClient({ provider: openaiChat({ apiKey: KEY, baseURL: chat.url, model: "gpt-4o", promptCacheKey: "conv-42" }) }).chat("hi");
    await createClient({ provider: openai({ apiKey: KEY, baseURL: resp.url, model: "gpt-4o", promptCacheKey: "conv-42" }) }).chat("hi");
    expect((chat.requests[0]!.body as Record<string, unknown>).prompt_cache_key).toBe("conv-42");
    expect((resp.requests[0]!.body as Record<string, unknown>).prompt_cache_key).toBe("conv-42");
    expect(specValidator("CreateChatCompletionRequest")(chat.requests[0]!.body)).toEqual([]);
    expect(specValidator("CreateResponse")(resp.requests[0]!.body)).toEqual([]);
    // and nothing when not asked
    await createClient({ provider: openai({ apiKey: KEY, baseURL: resp.url, model: "gpt-4o" }) }).chat("hi");
    expect("prompt_cache_key" in (resp.requests[1]!.body as object)).toBe(false);
  });

  for (const api of ["responses", "chat"] as const) {
    it(`${api}: tools and instructions are byte-identical from step to step and across setTools of the same set`, async () => {
      const m =
        api === "chat"
          ? await startOpenAIChatMock({ apiKey: KEY, script: [...threeSteps, ...threeSteps] })
          : await startOpenAIResponsesMock({ apiKey: KEY, script: [...threeSteps, ...threeSteps] });
      mocks.push(m);
      const client = createClient({
        provider: (api === "chat" ? openaiChat : openai)({ apiKey: KEY, baseURL: m.url, model: "gpt-4o" }),
        systemPrompt: "Be brief.",
        tools: makeTools(),
      });
      await client.chat("Weather and time in Paris?");
      client.setTools(makeTools()); // new objects, same set
      await client.chat("And again?");
      const prefix = (b: unknown) => {
        const body = b as Record<string, unknown>;
        const system = api === "chat" ? JSON.stringify((body.messages as unknown[])[0]) : JSON.stringify(body.instructions);
        return `${JSON.stringify(body.tools)}|${system}`;
      };
      const prefixes = m.requests.map((r) => prefix(r.body));
      expect(prefixes).toHaveLength(6);
      expect(new Set(prefixes).size).toBe(1);
      // the conversation itself only grows: each request's input starts with the previous one's
      const items = m.requests.map((r) =>
        JSON.stringify(api === "chat" ? (r.body as { messages: unknown[] }).messages : (r.body as { input: unknown[] }).input).slice(0, -1),
      );
      for (let i = 1; i < items.length; i++) expect(items[i]!.startsWith(items[i - 1]!)).toBe(true);
    });
  }
});

describe("reasoning summaries", () => {
  const sent = (m: OpenAIMock, i: number) => (m.requests[i]!.body as { reasoning?: unknown }).reasoning;

  it("a reasoning model asks for summary auto on streamed requests and shows it as reasoning-delta events", async () => {
    const m = await startOpenAIResponsesMock({
      apiKey: KEY,
      script: [
        { reasoning: "First I look up the weather.", toolCalls: [{ id: "c1", name: "get_weather", input: { city: "Paris", unit: null } }] },
        { reasoning: "Now answer.", text: "21 in Paris." },
      ],
    });
    mocks.push(m);
    const client = createClient({ provider: openai({ apiKey: KEY, baseURL: m.url, model: "gpt-5-mini" }), tools: makeTools() });
    const events = await collect(client.stream("Weather in Paris?"));
    expect(sent(m, 0)).toEqual({ summary: "auto" });
    const reasoning = events
      .filter((e): e is Extract<StreamEvent, { type: "reasoning-delta" }> => e.type === "reasoning-delta")
      .map((e) => e.text)
      .join("");
    // one summary per step (each step is its own response)
    expect(reasoning).toBe("First I look up the weather." + "Now answer.");
    // the reasoning comes before the step's tool call and text
    const kinds = events.map((e) => e.type);
    expect(kinds.indexOf("reasoning-delta")).toBeLessThan(kinds.indexOf("tool-call"));
    // encrypted reasoning goes back verbatim on the next request (store: false)
    const second = m.requests[1]!.body as { input: { type?: string; encrypted_content?: string }[]; include?: string[] };
    expect(second.include).toContain("reasoning.encrypted_content");
    const replayed = second.input.find((i) => i.type === "reasoning");
    expect(replayed?.encrypted_content).toMatch(/^gAAAAA/);
    expect(specValidator("CreateResponse")(second)).toEqual([]);
  });

  it("asks for nothing on chat() (no place to show it), for models that do not reason, or with summary: off; a set summary always goes", async () => {
    const m = await startOpenAIResponsesMock({ apiKey: KEY, script: () => ({ text: "ok" }) });
    mocks.push(m);
    const run = async (model: string, reasoning: Parameters<typeof openai>[0]["reasoning"], stream: boolean) => {
      const client = createClient({ provider: openai({ apiKey: KEY, baseURL: m.url, model, ...(reasoning ? { reasoning } : {}) }) });
      if (stream) await collect(client.stream("hi"));
      else await client.chat("hi");
      return sent(m, m.requests.length - 1);
    };
    expect(await run("gpt-5-mini", undefined, false)).toBeUndefined();
    expect(await run("gpt-4o", undefined, true)).toBeUndefined();
    expect(await run("o4-mini", { summary: "off" }, true)).toBeUndefined();
    expect(await run("o4-mini", { effort: "low", summary: "off" }, true)).toEqual({ effort: "low" });
    expect(await run("gpt-5-mini", { summary: "detailed" }, false)).toEqual({ summary: "detailed" });
    expect(await run("o3", { effort: "high" }, true)).toEqual({ effort: "high", summary: "auto" });
  });

  it("the recorded summary stream (vercel-ai openai-reasoning-encrypted-content) gives its summary text as reasoning-delta", () => {
    const lines = splitResponsesStreams(jsonLines("responses/vercel-ai/openai-reasoning-encrypted-content.1.chunks.txt"))[0]!;
    const deltas: Delta[] = [];
    const d = createResponsesStreamDecoder({ provider: "openai" }, (x) => deltas.push(x));
    feedSSE([new TextEncoder().encode(responsesSSE(lines))], (data) => d.push(data));
    const res = d.finish();
    const summary = (res.providerData!.value as { type: string; summary?: { text: string }[] }[])
      .filter((i) => i.type === "reasoning")
      .flatMap((i) => (i.summary ?? []).map((s) => s.text))
      .join("\n\n");
    expect(summary.length).toBeGreaterThan(20);
    expect(
      deltas
        .filter((x) => x.type === "reasoning-delta")
        .map((x) => (x as { text: string }).text)
        .join(""),
    ).toBe(summary);
  });

  it("Chat Completions: reasoning_content from a compatible server streams as reasoning-delta", async () => {
    const m = await startOpenAIChatMock({});
    mocks.push(m);
    const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
      `data: ${JSON.stringify({ id: "x", object: "chat.completion.chunk", created: 1, model: "r1", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    m.enqueue({
      sse: [
        chunk({ role: "assistant", reasoning_content: "Think" }),
        chunk({ reasoning_content: "ing." }),
        chunk({ content: "Answer." }),
        chunk({}, "stop"),
        "data: [DONE]\n\n",
      ],
    });
    const events = await collect(createClient({ provider: openaiChat({ apiKey: KEY, baseURL: m.url, model: "r1" }) }).stream("hi"));
    expect(events.filter((e) => e.type === "reasoning-delta").map((e) => (e as { text: string }).text)).toEqual(["Think", "ing."]);
    expect(events.at(-1)).toMatchObject({ type: "finish", text: "Answer." });
  });
});
