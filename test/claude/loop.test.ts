// Full loops through createClient against the Claude mock over real HTTP: the mock checks
// every request the way the real API does, so a history the adapter encodes wrongly
// fails here with the API's own error.

import * as v from "valibot";
import { afterEach, describe, expect, it } from "vitest";
import { type ClaudeOptions, claude } from "../../adapters/claude/index.js";
import { isToolloopError, type ProviderError } from "../../src/base/errors.js";
import { createClient, type Message, type StreamEvent, tool, webSearch } from "../../src/index.js";
import { type ClaudeMock, type MockTurn, messageEvents, mockSignature, startClaudeMock } from "../mock/claude.js";

const KEY = "sk-ant-test-0123456789";
const MODEL = "claude-sonnet-4-5";
const mocks: ClaudeMock[] = [];
afterEach(async () => {
  await Promise.all(mocks.splice(0).map((m) => m.close()));
});

async function setup(script: MockTurn[] | ((body: unknown, index: number) => MockTurn), options: Partial<ClaudeOptions> = {}) {
  const mock = await startClaudeMock({ apiKey: KEY, script });
  mocks.push(mock);
  // Exact request shapes here; cache_control breakpoints are checked in cache.test.ts.
  const provider = claude({ apiKey: KEY, model: MODEL, baseURL: mock.url, cache: "off", ...options });
  return { mock, provider };
}

const getWeather = tool({
  name: "get_weather",
  description: "Current temperature for a city.",
  input: v.object({ city: v.string() }),
  run: async ({ city }) => ({ city, celsius: city === "Paris" ? 21 : 15 }),
});

/** Every tool call in history is answered by the tool message right after it. */
function assertValidHistory(history: Message[]): void {
  history.forEach((m, i) => {
    if (m.role === "assistant" && m.toolCalls?.length) {
      const next = history[i + 1];
      expect(next?.role).toBe("tool");
      if (next?.role === "tool") expect(next.results.map((r) => r.callId)).toEqual(m.toolCalls.map((c) => c.id));
    }
  });
}

function lastUser(body: { messages: { role: string; content: Record<string, unknown>[] }[] }) {
  return body.messages[body.messages.length - 1]!;
}

describe("claude: chat with tools", () => {
  it("runs sequential tool calls and sends the Messages API request shape", async () => {
    const { mock, provider } = await setup([
      { text: "Let me check Paris.", toolCalls: [{ name: "get_weather", input: { city: "Paris" } }] },
      { toolCalls: [{ name: "get_weather", input: { city: "London" } }] },
      { text: "Paris 21°C, London 15°C." },
    ]);
    const client = createClient({ provider, tools: [getWeather], systemPrompt: "Use the tools." });
    expect(await client.chat("Weather in Paris and London?")).toBe("Paris 21°C, London 15°C.");
    expect(mock.requests).toHaveLength(3);

    const first = mock.requests[0]!;
    expect(first.path).toBe("/v1/messages");
    expect(first.headers["x-api-key"]).toBe(KEY);
    expect(first.headers["anthropic-version"]).toBe("2023-06-01");
    expect(first.headers["content-type"]).toBe("application/json");
    expect(first.headers["anthropic-dangerous-direct-browser-access"]).toBeUndefined();
    expect(first.body).toEqual({
      model: MODEL,
      max_tokens: 4096,
      system: "Use the tools.",
      messages: [{ role: "user", content: [{ type: "text", text: "Weather in Paris and London?" }] }],
      tools: [
        {
          name: "get_weather",
          description: "Current temperature for a city.",
          input_schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
        },
      ],
    });
    expect(first.body.tool_choice).toBeUndefined(); // "auto" is the API's default

    const h = client.history;
    assertValidHistory(h);
    expect(h.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant", "tool", "assistant"]);
    const call1 = (h[1] as { toolCalls: { id: string; arguments: string }[] }).toolCalls[0]!;
    expect(call1.id).toMatch(/^toolu_/);
    expect(call1.arguments).toBe('{"city":"Paris"}');
    // Request 2 carries the call and its result, tool_result first in the next user turn.
    expect(mock.requests[1]!.body.messages.slice(1)).toEqual([
      {
        role: "assistant",
        content: [
          { type: "text", text: "Let me check Paris." },
          { type: "tool_use", id: call1.id, name: "get_weather", input: { city: "Paris" } },
        ],
      },
      { role: "user", content: [{ type: "tool_result", tool_use_id: call1.id, content: '{"city":"Paris","celsius":21}' }] },
    ]);
    expect(mock.requests[2]!.body.messages).toHaveLength(5);
    expect(client.lastRun?.usage.inputTokens).toBeGreaterThan(0);
  });

  it("answers parallel calls with one user turn holding every tool_result, in call order", async () => {
    const { mock, provider } = await setup([
      {
        toolCalls: [
          { id: "toolu_01Paris", name: "get_weather", input: { city: "Paris" } },
          { id: "toolu_02London", name: "get_weather", input: { city: "London" } },
        ],
      },
      { text: "Both done." },
    ]);
    const client = createClient({ provider, tools: [getWeather], parallelTools: true });
    expect(await client.chat("Both cities?")).toBe("Both done.");
    const turn = lastUser(mock.requests[1]!.body);
    expect(turn).toEqual({
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "toolu_01Paris", content: '{"city":"Paris","celsius":21}' },
        { type: "tool_result", tool_use_id: "toolu_02London", content: '{"city":"London","celsius":15}' },
      ],
    });
    expect(mock.requests[1]!.body.messages[1].content.filter((b: { type: string }) => b.type === "tool_use")).toHaveLength(2);
  });

  it("a failing tool's result is sent with is_error true", async () => {
    const broken = tool({
      name: "broken",
      description: "Fails.",
      input: v.object({}),
      run: () => {
        throw new Error("disk on fire");
      },
    });
    const { mock, provider } = await setup([{ toolCalls: [{ name: "broken", input: {} }] }, { text: "It failed." }]);
    const client = createClient({ provider, tools: [broken] });
    expect(await client.chat("Try it")).toBe("It failed.");
    const result = lastUser(mock.requests[1]!.body).content[0]!;
    expect(result).toMatchObject({ type: "tool_result", is_error: true, content: '{"error":"disk on fire"}' });
  });

  it("arguments cut off mid-JSON are answered with an error and replayed as input {}", async () => {
    const { mock, provider } = await setup([{ text: "Sorry, I was cut off." }]);
    const cut = {
      id: "msg_01cut",
      type: "message",
      role: "assistant",
      model: MODEL,
      content: [{ type: "tool_use", id: "toolu_01cut", name: "get_weather", input: { city: "Paris" } }],
      stop_reason: "max_tokens",
      stop_sequence: null,
      usage: { input_tokens: 10, output_tokens: 4096 },
    };
    // The arguments arrive as '{"city":"P' + 'aris"}'; max_tokens struck before the second part.
    const events = messageEvents(cut);
    events.splice(
      events.findIndex((e) => e.includes("aris")),
      1,
    );
    mock.enqueue({ sse: events });
    const client = createClient({ provider, tools: [getWeather] });
    const events2: StreamEvent[] = [];
    for await (const ev of client.stream("Weather?")) events2.push(ev);
    const h = client.history;
    expect((h[1] as { toolCalls: { arguments: string }[] }).toolCalls[0]!.arguments).toBe('{"city":"P');
    expect(events2.find((e) => e.type === "step-finish")).toMatchObject({ finishReason: "length" });
    const body = mock.requests[1]!.body;
    expect(body.messages[1].content).toEqual([{ type: "tool_use", id: "toolu_01cut", name: "get_weather", input: {} }]);
    expect(lastUser(body).content[0]).toMatchObject({ type: "tool_result", tool_use_id: "toolu_01cut", is_error: true });
  });

  it("consecutive user turns merge into one, and empty texts are never sent", async () => {
    const { mock, provider } = await setup([{ text: "Noted." }, { text: "Still noted." }]);
    const client = createClient({
      provider,
      history: [
        { role: "user", content: "First." },
        { role: "assistant", content: "" }, // e.g. a refusal with no content
        { role: "user", content: "   " },
      ],
    });
    client.add({ role: "user", content: "Context: I live in Paris." });
    expect(await client.chat("Remember that.")).toBe("Noted.");
    expect(mock.requests[0]!.body.messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "First." },
          { type: "text", text: "Context: I live in Paris." },
          { type: "text", text: "Remember that." },
        ],
      },
    ]);
    expect(await client.chat("")).toBe("Still noted.");
    expect(mock.requests[1]!.body.messages.at(-1)).toEqual({ role: "assistant", content: [{ type: "text", text: "Noted." }] });
  });

  it("finalAnswerOnMaxSteps sends tool_choice none, and a call made anyway is not replayed", async () => {
    const { mock, provider } = await setup([
      { toolCalls: [{ name: "get_weather", input: { city: "Paris" } }] },
      // The model calls a tool despite tool_choice none; the loop drops that call.
      { text: "Final answer.", toolCalls: [{ id: "toolu_01ignored", name: "get_weather", input: { city: "Rome" } }] },
      { text: "Next answer." },
    ]);
    const client = createClient({ provider, tools: [getWeather], maxSteps: 1, finalAnswerOnMaxSteps: true });
    expect(await client.chat("Weather?")).toBe("Final answer.");
    expect(mock.requests[1]!.body.tool_choice).toEqual({ type: "none" });
    expect(mock.requests[1]!.body.tools).toHaveLength(1);
    expect(await client.chat("And now?")).toBe("Next answer.");
    const replayed = mock.requests[2]!.body.messages[3];
    expect(replayed).toEqual({ role: "assistant", content: [{ type: "text", text: "Final answer." }] });
  });
});

describe("claude: stream", () => {
  it("streams text and argument deltas, then the loop's events, over SSE", async () => {
    const { mock, provider } = await setup([
      { text: "Checking the weather now.", toolCalls: [{ name: "get_weather", input: { city: "Paris" } }] },
      { text: "It is 21°C in Paris — lovely." },
    ]);
    const client = createClient({ provider, tools: [getWeather] });
    const events: StreamEvent[] = [];
    for await (const ev of client.stream("Weather in Paris?")) events.push(ev);
    expect(mock.requests.every((r) => r.body.stream === true)).toBe(true);

    const step1 = events.slice(0, events.findIndex((e) => e.type === "step-finish") + 1);
    const text1 = step1.flatMap((e) => (e.type === "text-delta" ? [e.text] : [])).join("");
    expect(text1).toBe("Checking the weather now.");
    expect(step1.filter((e) => e.type === "text-delta").length).toBeGreaterThan(1);
    const args = step1.flatMap((e) => (e.type === "tool-call-delta" ? [e.argsDelta] : [])).join("");
    expect(args).toBe('{"city":"Paris"}');
    const types = events.map((e) => e.type);
    expect(types.indexOf("tool-call")).toBeGreaterThan(types.lastIndexOf("tool-call-delta"));
    expect(types.indexOf("tool-result")).toBeGreaterThan(types.indexOf("tool-call"));
    expect(types.filter((t) => t === "step-finish")).toHaveLength(2);
    expect(events.find((e) => e.type === "step-finish")).toMatchObject({ step: 1, finishReason: "tool-calls" });
    expect(events.at(-1)).toMatchObject({ type: "finish", text: "It is 21°C in Paris — lovely.", steps: 2 });
    const final = events.filter((e) => e.type === "text-delta").slice(-20);
    expect(final.map((e) => (e as { text: string }).text).join("")).toContain("lovely.");
  });

  it("aborting mid-stream leaves a valid history, and the next chat works", async () => {
    const { mock, provider } = await setup([{ text: "Hello again." }]);
    const partial = messageEvents({
      id: "msg_01partial",
      type: "message",
      role: "assistant",
      model: MODEL,
      content: [{ type: "text", text: "Hello, this answer never finishes" }],
      stop_reason: "end_turn",
      usage: { input_tokens: 5, output_tokens: 9 },
    }).slice(0, 5); // message_start, ping, block start, two text deltas
    mock.enqueue({ sse: partial, hold: true });
    const client = createClient({ provider });
    const controller = new AbortController();
    const seen: string[] = [];
    const run = (async () => {
      for await (const ev of client.stream("Hi", { signal: controller.signal })) {
        if (ev.type === "text-delta") {
          seen.push(ev.text);
          controller.abort();
        }
      }
    })();
    const err = await run.catch((e: unknown) => e);
    expect((err as Error).name).toBe("AbortError");
    expect(seen.length).toBeGreaterThan(0);
    expect(client.history).toEqual([{ role: "user", content: "Hi" }]);

    expect(await client.chat("Are you there?")).toBe("Hello again.");
    expect(mock.requests[1]!.body.messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "Hi" },
          { type: "text", text: "Are you there?" },
        ],
      },
    ]);
  });

  it("aborting while a tool runs answers the call as cancelled, and the next request is valid", async () => {
    let started: () => void = () => {};
    const running = new Promise<void>((r) => (started = r));
    const slow = tool({
      name: "slow",
      description: "Waits until cancelled.",
      input: v.object({}),
      run: (_input, ctx) =>
        new Promise((_resolve, reject) => {
          started();
          ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason), { once: true });
        }),
    });
    const { mock, provider } = await setup([{ toolCalls: [{ id: "toolu_01slow", name: "slow", input: {} }] }, { text: "Fine." }]);
    const client = createClient({ provider, tools: [slow] });
    const controller = new AbortController();
    const run = client.chat("Go", { signal: controller.signal });
    await running;
    controller.abort();
    await expect(run).rejects.toMatchObject({ name: "AbortError" });
    assertValidHistory(client.history);
    expect(await client.chat("Never mind.")).toBe("Fine.");
    const body = mock.requests[1]!.body;
    expect(body.messages[2]).toEqual({
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "toolu_01slow", content: '{"error":"cancelled"}', is_error: true },
        { type: "text", text: "Never mind." },
      ],
    });
  });
});

describe("claude: ask (structured output)", () => {
  const City = v.object({ city: v.string(), celsius: v.number() });

  it("uses output_config.format with additionalProperties: false added", async () => {
    const { mock, provider } = await setup([{ text: '{"city":"Paris","celsius":21}' }]);
    const client = createClient({ provider });
    expect(await client.ask("Weather in Paris as JSON.", City)).toEqual({ city: "Paris", celsius: 21 });
    const body = mock.requests[0]!.body;
    expect(body.output_config).toEqual({
      format: {
        type: "json_schema",
        schema: {
          type: "object",
          properties: { city: { type: "string" }, celsius: { type: "number" } },
          required: ["city", "celsius"],
          additionalProperties: false,
        },
      },
    });
    expect(body.tools).toBeUndefined();
    expect(mock.requests[0]!.headers["anthropic-beta"]).toBeUndefined();
  });

  it("re-asks once on a mismatch, with the first answer in history", async () => {
    const { mock, provider } = await setup([{ text: '{"city":"Paris"}' }, { text: '{"city":"Paris","celsius":21}' }]);
    const client = createClient({ provider });
    expect(await client.ask("Weather?", City)).toEqual({ city: "Paris", celsius: 21 });
    const second = mock.requests[1]!.body;
    expect(second.output_config.format.type).toBe("json_schema");
    expect(second.messages[1]).toEqual({ role: "assistant", content: [{ type: "text", text: '{"city":"Paris"}' }] });
    expect(second.messages[2].content[0].text).toMatch(/did not match the required JSON schema/);
  });

  it('structuredOutput: "tool" forces an output tool and turns its call into the answer', async () => {
    const { mock, provider } = await setup(
      [{ toolCalls: [{ name: "structured_output", input: { city: "Paris", celsius: 21 } }] }, { text: "You're welcome." }],
      { structuredOutput: "tool" },
    );
    const client = createClient({ provider });
    expect(await client.ask("Weather?", City)).toEqual({ city: "Paris", celsius: 21 });
    const body = mock.requests[0]!.body;
    expect(body.output_config).toBeUndefined();
    expect(body.tool_choice).toEqual({ type: "tool", name: "structured_output" });
    expect(body.tools.at(-1)).toMatchObject({ name: "structured_output", input_schema: { type: "object", required: ["city", "celsius"] } });
    const h = client.history;
    expect(h[1]).toMatchObject({ role: "assistant", content: '{"city":"Paris","celsius":21}' });
    expect((h[1] as { toolCalls?: unknown }).toolCalls).toBeUndefined();
    // The answer is replayed as text: no tool_use is left without a tool_result.
    expect(await client.chat("Thanks")).toBe("You're welcome.");
    expect(mock.requests[1]!.body.messages[1]).toEqual({
      role: "assistant",
      content: [{ type: "text", text: '{"city":"Paris","celsius":21}' }],
    });
  });

  it('structuredOutput: "tool" wraps a non-object schema and lets other tools run first', async () => {
    const { mock, provider } = await setup(
      [{ toolCalls: [{ name: "get_weather", input: { city: "Paris" } }] }, { toolCalls: [{ name: "structured_output", input: { value: ["Paris", "21"] } }] }],
      { structuredOutput: "tool" },
    );
    const client = createClient({ provider, tools: [getWeather] });
    expect(await client.ask("City and temperature?", v.array(v.string()))).toEqual(["Paris", "21"]);
    const body = mock.requests[0]!.body;
    expect(body.tool_choice).toEqual({ type: "any" });
    expect(body.tools.map((t: { name: string }) => t.name)).toEqual(["get_weather", "structured_output"]);
    expect(body.tools[1].input_schema).toEqual({
      type: "object",
      properties: { value: { type: "array", items: { type: "string" } } },
      required: ["value"],
      additionalProperties: false,
    });
  });
});

describe("claude: web search", () => {
  const searchBlocks = [
    { type: "server_tool_use", id: "srvtoolu_01WeatherSearch", name: "web_search", input: { query: "Paris weather today" } },
    {
      type: "web_search_tool_result",
      tool_use_id: "srvtoolu_01WeatherSearch",
      content: [{ type: "web_search_result", title: "Paris forecast", url: "https://example.com/paris", encrypted_content: "EqgCCioIBhgC", page_age: null }],
    },
    {
      type: "text",
      text: "It is sunny in Paris.",
      citations: [
        {
          type: "web_search_result_location",
          cited_text: "Sunny, 21°C",
          url: "https://example.com/paris",
          title: "Paris forecast",
          encrypted_index: "Eo8BCioI",
        },
      ],
    },
  ];

  for (const streamed of [false, true]) {
    it(`attaches the server tool and replays its blocks verbatim (${streamed ? "SSE" : "JSON"})`, async () => {
      const { mock, provider } = await setup([{ blocks: searchBlocks }, { text: "You're welcome." }]);
      const client = createClient({ provider, tools: [webSearch(), getWeather] });
      const answer = streamed
        ? await (async () => {
            let text = "";
            for await (const ev of client.stream("Weather in Paris?")) if (ev.type === "finish") text = ev.text;
            return text;
          })()
        : await client.chat("Weather in Paris?");
      expect(answer).toBe("It is sunny in Paris.");
      expect(client.lastRun?.usage.webSearches).toBe(1);
      const tools = mock.requests[0]!.body.tools as Record<string, unknown>[];
      expect(tools).toEqual([expect.objectContaining({ name: "get_weather" }), { type: "web_search_20250305", name: "web_search" }]);
      expect(tools.filter((t) => t.name === "web_search" && t.input_schema)).toEqual([]);
      await client.chat("Thanks");
      expect(mock.requests[1]!.body.messages[1]).toEqual({ role: "assistant", content: searchBlocks });
    });
  }
});

describe("claude: extended thinking", () => {
  for (const streamed of [false, true]) {
    it(`replays thinking blocks with their signatures verbatim (${streamed ? "SSE" : "JSON"})`, async () => {
      const { mock, provider } = await setup(
        [
          { thinking: "The user wants the Paris weather; call the tool.", toolCalls: [{ name: "get_weather", input: { city: "Paris" } }] },
          { thinking: "21 degrees. Answer briefly.", text: "21°C." },
        ],
        { thinking: { budgetTokens: 1024 }, maxTokens: 2048 },
      );
      const client = createClient({ provider, tools: [getWeather] });
      if (streamed) {
        for await (const _ of client.stream("Weather?")) void _;
      } else {
        expect(await client.chat("Weather?")).toBe("21°C.");
      }
      const body = mock.requests[1]!.body;
      expect(mock.requests[0]!.body.thinking).toEqual({ type: "enabled", budget_tokens: 1024 });
      expect(body.messages[1].content[0]).toEqual({
        type: "thinking",
        thinking: "The user wants the Paris weather; call the tool.",
        signature: mockSignature("The user wants the Paris weather; call the tool."),
      });
      expect(client.history.at(-1)).toMatchObject({ role: "assistant", content: "21°C." });
    });
  }

  it("the mock rejects a tool turn whose thinking was lost or altered (the check is real)", async () => {
    const { provider } = await setup(
      [{ thinking: "Plan: call the tool.", toolCalls: [{ name: "get_weather", input: { city: "Paris" } }], stopReason: "tool_use" }],
      { thinking: { budgetTokens: 1024 }, maxTokens: 2048, maxRetries: 0 },
    );
    const client = createClient({ provider, tools: [getWeather], maxSteps: 1 });
    await expect(client.chat("Weather?")).rejects.toMatchObject({ code: "max_steps" });
    const history = client.history;

    const lost = history.map((m) => (m.role === "assistant" ? { ...m, providerData: undefined } : m));
    const err1 = (await createClient({ provider, tools: [getWeather], history: lost })
      .chat()
      .catch((e: unknown) => e)) as ProviderError;
    expect(err1.status).toBe(400);
    expect(err1.message).toContain("Expected `thinking` or `redacted_thinking`, but found `tool_use`");

    const altered = structuredClone(history);
    (altered[1] as { providerData: { value: { thinking: string }[] } }).providerData.value[0]!.thinking = "Plan: something else.";
    const err2 = (await createClient({ provider, tools: [getWeather], history: altered })
      .chat()
      .catch((e: unknown) => e)) as ProviderError;
    expect(isToolloopError(err2, "provider_error")).toBe(true);
    expect(err2.message).toContain("Invalid `signature` in `thinking` block");
  });
});

describe("claude: pause_turn", () => {
  const paused = (n: number) => ({
    id: `msg_01paused${n}`,
    type: "message",
    role: "assistant",
    model: MODEL,
    content: [{ type: "server_tool_use", id: `srvtoolu_01search${n}`, name: "web_search", input: { query: `query ${n}` } }],
    stop_reason: "pause_turn",
    stop_sequence: null,
    usage: { input_tokens: 100, output_tokens: 7, server_tool_use: { web_search_requests: 1 } },
  });
  const rest: MockTurn = {
    blocks: [
      { type: "web_search_tool_result", tool_use_id: "srvtoolu_01search1", content: [] },
      { type: "text", text: "Nothing found, sorry." },
    ],
  };

  for (const streamed of [false, true]) {
    it(`continues a paused turn and merges it into one answer (${streamed ? "SSE" : "JSON"})`, async () => {
      const { mock, provider } = await setup([rest]);
      if (streamed) mock.enqueue({ sse: messageEvents(paused(1)) });
      else mock.enqueue({ status: 200, body: JSON.stringify(paused(1)) });
      const client = createClient({ provider, tools: [webSearch()] });
      let answer: string;
      if (streamed) {
        answer = "";
        for await (const ev of client.stream("Search it")) if (ev.type === "finish") answer = ev.text;
      } else answer = await client.chat("Search it");
      expect(answer).toBe("Nothing found, sorry.");
      expect(mock.requests).toHaveLength(2);
      // The continuation sends the paused content back as the last (assistant) turn.
      expect(mock.requests[1]!.body.messages).toEqual([
        { role: "user", content: [{ type: "text", text: "Search it" }] },
        { role: "assistant", content: paused(1).content },
      ]);
      const h = client.history;
      expect(h).toHaveLength(2);
      expect(h[1]!.role).toBe("assistant");
      expect((h[1] as { providerData: { value: unknown } }).providerData.value).toEqual([...paused(1).content, ...rest.blocks!]);
      expect(client.lastRun!.usage.inputTokens).toBeGreaterThan(100); // both requests counted
      expect(client.lastRun!.usage.webSearches).toBe(1);
    });
  }

  it("gives up after 5 continuations and returns what it has", async () => {
    const { mock, provider } = await setup([]);
    for (let i = 1; i <= 7; i++) mock.enqueue({ status: 200, body: JSON.stringify(paused(i)) });
    const r = await provider.generate({ messages: [{ role: "user", content: "Search" }], tools: [], webSearch: true });
    expect(mock.requests).toHaveLength(6);
    expect(r.finishReason).toBe("other");
    expect((r.providerData!.value as unknown[]).length).toBe(6);
    expect(r.usage).toEqual({ inputTokens: 600, outputTokens: 42, webSearches: 6 });
    expect(mock.requests[5]!.body.messages[1].content).toHaveLength(5);
  });
});
