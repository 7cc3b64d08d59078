// Full loops through createClient against the Chat Completions mock over real HTTP:
// openaiChat() and openaiCompatible().

import * as v from "valibot";
import { afterEach, describe, expect, it } from "vitest";
import { type openai, openaiChat, openaiCompatible } from "../../adapters/openai/index.js";
import { createClient, jsonTool, type StreamEvent, tool, webSearch } from "../../src/index.js";
import { type OpenAIChatMockOptions, type OpenAIMock, sseData, startOpenAIChatMock } from "../mock/openai-chat.js";

const KEY = "sk-test-chat-4f8a9c2b1d";
const mocks: OpenAIMock[] = [];
afterEach(async () => {
  await Promise.all(mocks.splice(0).map((m) => m.close()));
});

async function mock(options: OpenAIChatMockOptions = {}): Promise<OpenAIMock> {
  const m = await startOpenAIChatMock({ apiKey: KEY, ...options });
  mocks.push(m);
  return m;
}

function provider(m: OpenAIMock, extra: Partial<Parameters<typeof openai>[0]> = {}) {
  return openaiChat({ apiKey: KEY, model: "gpt-4o", baseURL: m.url, maxRetries: 0, ...extra });
}

type Body = {
  messages: { role: string; content?: unknown; tool_calls?: { id: string; function: { name: string; arguments: string } }[]; tool_call_id?: string }[];
  tools?: { type: string; function: { name: string; parameters: Record<string, unknown>; strict?: boolean } }[];
  [key: string]: unknown;
};
const body = (m: OpenAIMock, i: number) => m.requests[i]!.body as Body;

const calls: string[] = [];
const getWeather = tool({
  name: "get_weather",
  description: "Current temperature for a city.",
  input: v.object({ city: v.string(), unit: v.optional(v.picklist(["c", "f"])) }),
  run: async (input) => {
    calls.push(`weather:${JSON.stringify(input)}`);
    return { city: input.city, temp: 21, unit: input.unit ?? "c" };
  },
});
const getTime = tool({
  name: "get_time",
  description: "Local time in a city.",
  input: v.object({ city: v.string() }),
  run: async ({ city }) => {
    calls.push(`time:${city}`);
    return `12:00 in ${city}`;
  },
});

async function collect(stream: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const out: StreamEvent[] = [];
  for await (const e of stream) out.push(e);
  return out;
}

describe("openaiChat() loops", () => {
  it("runs sequential tool calls over several steps and sends a valid history each time", async () => {
    calls.length = 0;
    const m = await mock({
      script: [
        { toolCalls: [{ id: "call_a", name: "get_weather", input: { city: "Paris" } }] },
        { text: "Let me check the time too.", toolCalls: [{ id: "call_b", name: "get_time", input: { city: "Paris" } }] },
        { text: "21°C and noon in Paris." },
      ],
    });
    const client = createClient({ provider: provider(m), systemPrompt: "Use the tools.", tools: [getWeather, getTime] });
    expect(await client.chat("Weather and time in Paris?")).toBe("21°C and noon in Paris.");
    expect(calls).toEqual(['weather:{"city":"Paris"}', "time:Paris"]);
    expect(m.requests).toHaveLength(3);
    expect(body(m, 2).messages).toEqual([
      { role: "system", content: "Use the tools." },
      { role: "user", content: "Weather and time in Paris?" },
      { role: "assistant", content: null, tool_calls: [{ id: "call_a", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }] },
      { role: "tool", tool_call_id: "call_a", content: '{"city":"Paris","temp":21,"unit":"c"}' },
      {
        role: "assistant",
        content: "Let me check the time too.",
        tool_calls: [{ id: "call_b", type: "function", function: { name: "get_time", arguments: '{"city":"Paris"}' } }],
      },
      { role: "tool", tool_call_id: "call_b", content: "12:00 in Paris" },
    ]);
    const h = client.history;
    expect(h[1]).toMatchObject({ role: "assistant", toolCalls: [{ id: "call_a", name: "get_weather", arguments: '{"city":"Paris"}' }] });
    expect(client.lastRun?.usage.inputTokens).toBeGreaterThan(0);
  });

  it("answers parallel tool calls of one step in call order", async () => {
    calls.length = 0;
    const m = await mock({
      script: [
        {
          toolCalls: [
            { id: "call_1", name: "get_weather", input: { city: "Oslo", unit: "f" } },
            { id: "call_2", name: "get_time", input: { city: "Lima" } },
            { id: "call_3", name: "get_weather", input: { city: "Rome" } },
          ],
        },
        { text: "Done." },
      ],
    });
    const client = createClient({ provider: provider(m), tools: [getWeather, getTime], parallelTools: true });
    expect(await client.chat("Three things")).toBe("Done.");
    expect(body(m, 0).parallel_tool_calls).toBe(true);
    expect(
      body(m, 1)
        .messages.filter((x) => x.role === "tool")
        .map((x) => x.tool_call_id),
    ).toEqual(["call_1", "call_2", "call_3"]);
    expect(calls.sort()).toEqual(['weather:{"city":"Oslo","unit":"f"}', 'weather:{"city":"Rome"}', "time:Lima"].sort());
  });

  it("an o-series model gets no parallel_tool_calls (OpenAI refuses it there), with tools, and its request is accepted", async () => {
    const turns = [{ toolCalls: [{ id: "call_1", name: "get_time", input: { city: "Lima" } }] }, { text: "Done." }];
    const m = await mock({ script: [...turns, ...turns] });
    for (const model of ["o4-mini", "o3"]) {
      const client = createClient({ provider: openaiChat({ apiKey: KEY, model, baseURL: m.url }), tools: [getTime] });
      expect(await client.chat("time?")).toBe("Done.");
    }
    expect(m.requests.every((r) => !("parallel_tool_calls" in (r.body as object)))).toBe(true);
  });

  it("streams text and tool-call deltas, then the events of the loop", async () => {
    const m = await mock({
      script: [
        { text: "Checking.", toolCalls: [{ id: "call_s", name: "get_weather", input: { city: "Bergen", unit: null } }] },
        { text: "It is 21 degrees in Bergen." },
      ],
    });
    const client = createClient({ provider: provider(m), tools: [getWeather] });
    const events = await collect(client.stream("Weather in Bergen?"));
    expect(body(m, 0).stream).toBe(true);
    expect(body(m, 0).stream_options).toEqual({ include_usage: true });
    const argDeltas = events.filter((e) => e.type === "tool-call-delta");
    expect(argDeltas.length).toBeGreaterThan(1);
    expect(argDeltas.map((e) => (e as { argsDelta: string }).argsDelta).join("")).toBe('{"city":"Bergen","unit":null}');
    expect(events.map((e) => e.type).filter((t, i, a) => t !== a[i - 1])).toEqual([
      "text-delta",
      "tool-call-delta",
      "tool-call",
      "tool-result",
      "step-finish",
      "text-delta",
      "step-finish",
      "finish",
    ]);
    const text = events
      .filter((e) => e.type === "text-delta")
      .map((e) => (e as { text: string }).text)
      .join("");
    expect(text).toBe("Checking.It is 21 degrees in Bergen.");
    // deltas are what the model wrote; the call the loop runs has the strict null mapped back
    const toolCall = events.find((e) => e.type === "tool-call") as Extract<StreamEvent, { type: "tool-call" }>;
    expect(toolCall.input).toEqual({ city: "Bergen" });
    expect(toolCall.arguments).toBe('{"city":"Bergen"}');
    const stepFinish = events.filter((e) => e.type === "step-finish") as Extract<StreamEvent, { type: "step-finish" }>[];
    expect(stepFinish.map((e) => e.finishReason)).toEqual(["tool-calls", "stop"]);
    expect(stepFinish[0]!.usage.outputTokens).toBeGreaterThan(0);
    expect(events.at(-1)).toMatchObject({ type: "finish", text: "It is 21 degrees in Bergen.", steps: 2, toolCalls: 1 });
  });

  it("asks for structured output with a strict json_schema, maps nulls back, and re-asks once", async () => {
    const m = await mock({
      script: [{ text: '{"city":"Paris"}' }, { text: '{"city":"Paris","country":"France","population":null}' }],
    });
    const client = createClient({ provider: provider(m) });
    const schema = v.object({ city: v.string(), country: v.string(), population: v.optional(v.number()) });
    const answer = await client.ask("Largest city in France?", schema);
    expect(answer).toEqual({ city: "Paris", country: "France" });
    expect(body(m, 0).response_format).toEqual({
      type: "json_schema",
      json_schema: {
        name: "response",
        strict: true,
        schema: {
          type: "object",
          properties: { city: { type: "string" }, country: { type: "string" }, population: { type: ["number", "null"] } },
          required: ["city", "country", "population"],
          additionalProperties: false,
        },
      },
    });
    const reask = body(m, 1).messages.at(-1)!;
    expect(reask.role).toBe("user");
    expect(String(reask.content)).toMatch(/did not match the required JSON schema/);
    expect(client.history.at(-1)).toEqual({ role: "assistant", content: '{"city":"Paris","country":"France"}' });
  });

  it("compiles tool schemas for strict mode, falls back per tool, and never lets strict nulls reach the tool", async () => {
    const seen: unknown[] = [];
    const named = tool({
      name: "rename",
      description: "Rename a file.",
      input: v.object({ from: v.pipe(v.string(), v.minLength(1)), to: v.string(), force: v.optional(v.boolean()) }),
      run: async (input) => {
        seen.push(input);
        return "ok";
      },
    });
    const m = await mock({
      script: [
        {
          toolCalls: [
            { id: "c1", name: "get_weather", input: { city: "Paris", unit: null } },
            { id: "c2", name: "rename", input: { from: "a", to: "b" } },
          ],
        },
        { text: "ok" },
      ],
    });
    const client = createClient({ provider: provider(m), tools: [getWeather, named] });
    await client.chat("go");
    const tools = body(m, 0).tools!;
    expect(tools[0]!.function.strict).toBe(true);
    expect(tools[0]!.function.parameters.required).toEqual(["city", "unit"]);
    // minLength has no strict form: that tool goes non-strict with its schema as written
    expect(tools[1]!.function.strict).toBe(false);
    expect(tools[1]!.function.parameters).toEqual(named.parameters);
    const results = body(m, 1)
      .messages.filter((x) => x.role === "tool")
      .map((x) => x.content);
    expect(results).toEqual(['{"city":"Paris","temp":21,"unit":"c"}', "ok"]);
    expect(client.history[1]).toMatchObject({ toolCalls: [{ arguments: '{"city":"Paris"}' }, { arguments: '{"from":"a","to":"b"}' }] });
    expect(seen).toEqual([{ from: "a", to: "b" }]);
  });

  it("sends strict: false everywhere when strict is off", async () => {
    const m = await mock({ script: [{ text: "ok" }] });
    await createClient({ provider: provider(m, { strict: false }), tools: [getWeather] }).chat("hi");
    const fn = body(m, 0).tools![0]!.function;
    expect(fn.strict).toBe(false);
    expect(fn.parameters).toEqual(getWeather.parameters);
  });

  it("forbids tools with tool_choice none on the final call of finalAnswerOnMaxSteps", async () => {
    const m = await mock({
      script: [{ toolCalls: [{ id: "x1", name: "get_time", input: { city: "Oslo" } }] }, { text: "final" }],
    });
    const client = createClient({ provider: provider(m), tools: [getTime], maxSteps: 1, finalAnswerOnMaxSteps: true });
    expect(await client.chat("loop")).toBe("final");
    expect(body(m, 0).tool_choice).toBeUndefined();
    expect(body(m, 1).tool_choice).toBe("none");
    expect(body(m, 1).tools).toHaveLength(1);
  });

  it("asks Chat Completions' native web search for a web_search tool, never a function named web_search", async () => {
    const m = await mock({ script: [{ text: "searched" }] });
    await createClient({ provider: provider(m), tools: [webSearch(), getTime] }).chat("news?");
    expect(body(m, 0).web_search_options).toEqual({});
    expect(body(m, 0).tools!.map((t) => t.function.name)).toEqual(["get_time"]);
  });

  it("sends max_completion_tokens, temperature and reasoning_effort", async () => {
    const m = await mock({ script: [{ text: "ok" }] });
    await createClient({ provider: provider(m, { maxOutputTokens: 55, temperature: 0.2, reasoning: { effort: "low" } }) }).chat("hi");
    expect(body(m, 0)).toMatchObject({ max_completion_tokens: 55, temperature: 0.2, reasoning_effort: "low" });
    expect(body(m, 0).tools).toBeUndefined();
    expect(body(m, 0).parallel_tool_calls).toBeUndefined();
  });

  it("leaves a valid history when aborted mid-stream, and the next chat works", async () => {
    const m = await mock({ script: [{ text: "second answer" }] });
    m.enqueue({
      hold: true,
      sse: [
        sseData({ id: "c", object: "chat.completion.chunk", choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }] }),
        sseData({ id: "c", object: "chat.completion.chunk", choices: [{ index: 0, delta: { content: "partial" }, finish_reason: null }] }),
      ],
    });
    const client = createClient({ provider: provider(m), tools: [getWeather] });
    const controller = new AbortController();
    const seen: string[] = [];
    const run = (async () => {
      for await (const e of client.stream("first", { signal: controller.signal })) {
        seen.push(e.type);
        if (e.type === "text-delta") controller.abort();
      }
    })();
    await expect(run).rejects.toMatchObject({ name: "AbortError" });
    expect(seen).toEqual(["text-delta"]);
    expect(client.history).toEqual([{ role: "user", content: "first" }]);
    expect(await client.chat("again")).toBe("second answer");
    expect(body(m, 1).messages).toEqual([
      { role: "user", content: "first" },
      { role: "user", content: "again" },
    ]);
  });

  it("aborting during a tool run answers the cancelled calls, so the next request passes the API's pairing check", async () => {
    const slow = tool({
      name: "slow",
      description: "Waits until aborted.",
      input: v.object({}),
      run: (_input, ctx) => new Promise((_, reject) => ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason))),
    });
    const m = await mock({ script: [{ toolCalls: [{ id: "call_slow", name: "slow", input: {} }] }, { text: "recovered" }] });
    const client = createClient({ provider: provider(m), tools: [slow] });
    const controller = new AbortController();
    const run = (async () => {
      for await (const e of client.stream("wait", { signal: controller.signal })) if (e.type === "tool-call") controller.abort();
    })();
    await expect(run).rejects.toMatchObject({ name: "AbortError" });
    const h = client.history;
    expect(h[1]).toMatchObject({ role: "assistant", toolCalls: [{ id: "call_slow" }] });
    expect(h[2]).toMatchObject({ role: "tool", results: [{ callId: "call_slow", isError: true }] });
    expect(await client.chat("continue")).toBe("recovered");
    expect(body(m, 1).messages.map((x) => x.role)).toEqual(["user", "assistant", "tool", "user"]);
  });

  it("rejects a schema OpenAI cannot take when the tools are set, naming the tool and the place", () => {
    const bad = jsonTool({
      name: "tags",
      description: "Tags.",
      parameters: { type: "object", properties: { list: { type: "array" } } },
      run: () => "x",
    });
    const client = createClient({ provider: openaiChat({ apiKey: KEY, model: "gpt-4o" }) });
    expect(() => client.setTools([bad])).toThrow(expect.objectContaining({ code: "unsupported_schema", toolName: "tags", path: "/properties/list" }));
    // an OpenAI-compatible server may well take it
    expect(() => createClient({ provider: openaiCompatible({ baseURL: "http://127.0.0.1:1/v1", model: "m" }) }).setTools([bad])).not.toThrow();
  });
});

describe("errors and retries (chat)", () => {
  it("a wrong key is a typed 401 with the request id, and the key appears nowhere", async () => {
    const m = await mock({ script: [{ text: "never" }] });
    const p = openaiChat({ apiKey: "sk-wrong-key-77777777", model: "gpt-4o", baseURL: m.url, maxRetries: 0 });
    const err = await createClient({ provider: p })
      .chat("hi")
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(err).toMatchObject({
      code: "provider_error",
      name: "ProviderError",
      status: 401,
      type: "invalid_request_error",
      provider: "openai",
      retryable: false,
    });
    expect((err as { requestId: string }).requestId).toMatch(/^req_mock/);
    for (const text of [String(err), (err as Error).message, JSON.stringify(err), (err as Error).stack ?? ""]) {
      expect(text).not.toContain("sk-wrong-key-77777777");
    }
    expect(JSON.stringify(p)).toBe('{"name":"openai","model":"gpt-4o"}');
    expect(Object.values(p).join(" ")).not.toContain("sk-wrong-key");
  });

  it("retries a 429 after retry-after-ms, then succeeds", async () => {
    const m = await mock({ script: [{ text: "after retry" }] });
    m.enqueue({
      status: 429,
      headers: { "retry-after-ms": "5" },
      body: { error: { message: "Rate limit reached for gpt-4o", type: "requests", param: null, code: "rate_limit_exceeded" } },
    });
    const client = createClient({ provider: provider(m, { maxRetries: 2 }) });
    expect(await client.chat("hi")).toBe("after retry");
    expect(m.requests).toHaveLength(2);
    expect(m.requests[1]!.body).toEqual(m.requests[0]!.body);
  });

  it("gives up after maxRetries with the last 429 as a typed error", async () => {
    const m = await mock();
    const limited = {
      status: 429,
      headers: { "retry-after-ms": "1", "x-request-id": "req_limited" },
      body: { error: { message: "Rate limit reached", type: "requests", param: null, code: "rate_limit_exceeded" } },
    };
    m.enqueue(limited);
    m.enqueue(limited);
    const err = await createClient({ provider: provider(m, { maxRetries: 1 }) })
      .chat("hi")
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "provider_error", status: 429, type: "requests", requestId: "req_limited", retryable: true });
    expect(m.requests).toHaveLength(2);
  });

  it("an error chunk in the middle of a stream is a ProviderError", async () => {
    const m = await mock();
    m.enqueue({
      sse: [
        sseData({ id: "c", object: "chat.completion.chunk", choices: [{ index: 0, delta: { content: "Hel" }, finish_reason: null }] }),
        sseData({ error: { message: "The server had an error while processing your request.", type: "server_error", param: null, code: null } }),
      ],
    });
    const err = await collect(createClient({ provider: provider(m) }).stream("hi")).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "provider_error", type: "server_error" });
    expect((err as { requestId?: string }).requestId).toMatch(/^req_mock/);
  });

  it("a stream that stalls fails with IdleTimeoutError (provider option or client override)", async () => {
    const m = await mock();
    const stall = {
      hold: true,
      sse: [sseData({ id: "c", object: "chat.completion.chunk", choices: [{ index: 0, delta: { content: "Hel" }, finish_reason: null }] })],
    };
    m.enqueue(stall);
    m.enqueue(stall);
    await expect(collect(createClient({ provider: provider(m, { idleTimeout: 40 }) }).stream("a"))).rejects.toMatchObject({ code: "idle_timeout", ms: 40 });
    await expect(collect(createClient({ provider: provider(m), idleTimeout: 30 }).stream("b"))).rejects.toMatchObject({ code: "idle_timeout", ms: 30 });
  });

  it("a stream cut before finish_reason and [DONE] is a StreamError, never half a message", async () => {
    const m = await mock();
    m.enqueue({
      cutAfter: true,
      sse: [sseData({ id: "c", object: "chat.completion.chunk", choices: [{ index: 0, delta: { content: "Hel" }, finish_reason: null }] })],
    });
    m.enqueue({
      sse: [sseData({ id: "c", object: "chat.completion.chunk", choices: [{ index: 0, delta: { content: "Hel" }, finish_reason: null }] })],
    });
    const client = createClient({ provider: provider(m) });
    await expect(collect(client.stream("one"))).rejects.toMatchObject({ code: "stream_error" });
    await expect(collect(client.stream("two"))).rejects.toMatchObject({ code: "stream_error" });
    expect(client.history.filter((x) => x.role === "assistant")).toEqual([]);
  });
});

describe("openaiCompatible()", () => {
  const compatible = (m: OpenAIMock, extra: Partial<Parameters<typeof openaiCompatible>[0]> = {}) =>
    openaiCompatible({ baseURL: m.url, model: "llama3.1", apiKey: KEY, maxRetries: 0, ...extra });

  it("by default sends no parallel_tool_calls and no strict, so a server without them works", async () => {
    const m = await mock({
      rejectParallelToolCalls: true,
      script: [{ toolCalls: [{ id: "t1", name: "get_time", input: { city: "Oslo" } }] }, { text: "noon" }],
    });
    expect(await createClient({ provider: compatible(m), tools: [getTime] }).chat("time?")).toBe("noon");
    const fn = body(m, 0).tools![0]!.function;
    expect(fn).toEqual({ name: "get_time", description: "Local time in a city.", parameters: getTime.parameters });
    expect("parallel_tool_calls" in body(m, 0)).toBe(false);
  });

  it("sends parallel_tool_calls when the capability is on (and such a server rejects it with a typed 400)", async () => {
    const m = await mock({ rejectParallelToolCalls: true, script: [{ text: "x" }] });
    const err = await createClient({ provider: compatible(m, { compat: { parallelToolCalls: true } }), tools: [getTime] })
      .chat("time?")
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "provider_error", status: 400, provider: "openai-compatible" });
    expect((err as Error).message).toContain("parallel_tool_calls");
    const ok = await mock({ script: [{ text: "fine" }] });
    await createClient({ provider: compatible(ok, { compat: { parallelToolCalls: true }, parallelToolCalls: false }), tools: [getTime] }).chat("time?");
    expect(body(ok, 0).parallel_tool_calls).toBe(false);
  });

  it("sends stream_options unless the server does not take it", async () => {
    const rejecting = await mock({ rejectStreamOptions: true, script: [{ text: "streamed" }] });
    await expect(collect(createClient({ provider: compatible(rejecting) }).stream("hi"))).rejects.toMatchObject({ status: 400 });
    const events = await collect(createClient({ provider: compatible(rejecting, { compat: { streamOptions: false } }) }).stream("hi"));
    expect(events.at(-1)).toMatchObject({ type: "finish", text: "streamed", usage: { inputTokens: 0, outputTokens: 0 } });
    expect("stream_options" in body(rejecting, 1)).toBe(false);
  });

  it("compiles strict schemas when the server takes them", async () => {
    const m = await mock({ script: [{ toolCalls: [{ id: "w", name: "get_weather", input: { city: "Rome", unit: null } }] }, { text: "ok" }] });
    await createClient({ provider: compatible(m, { compat: { strict: true } }), tools: [getWeather] }).chat("w");
    expect(body(m, 0).tools![0]!.function.strict).toBe(true);
    expect(calls.at(-1)).toBe('weather:{"city":"Rome"}');
  });

  it("names itself as asked, uses max_tokens and optionally the developer role", async () => {
    const m = await mock({ script: [{ text: "a" }, { text: "b" }] });
    const p = compatible(m, { name: "ollama", maxOutputTokens: 10 });
    expect(p.name).toBe("ollama");
    expect(JSON.stringify(p)).toBe('{"name":"ollama","model":"llama3.1"}');
    await createClient({ provider: p, systemPrompt: "sys" }).chat("hi");
    expect(body(m, 0)).toMatchObject({
      max_tokens: 10,
      messages: [
        { role: "system", content: "sys" },
        { role: "user", content: "hi" },
      ],
    });
    await createClient({
      provider: compatible(m, { compat: { developerRole: true, maxCompletionTokens: true }, maxOutputTokens: 10 }),
      systemPrompt: "sys",
    }).chat("hi");
    expect(body(m, 1)).toMatchObject({
      max_completion_tokens: 10,
      messages: [
        { role: "developer", content: "sys" },
        { role: "user", content: "hi" },
      ],
    });
  });

  it("works without a key against a local server, and refuses webSearch when the tools are set (no standard for it)", async () => {
    const m = await startOpenAIChatMock({ script: [{ text: "local" }] });
    mocks.push(m);
    const p = openaiCompatible({ baseURL: `${m.url}/`, model: "qwen" });
    expect(() => createClient({ provider: p }).setTools([webSearch()])).toThrow(/web.?search/i);
    expect(await createClient({ provider: p }).chat("hi")).toBe("local");
    expect(m.requests[0]!.headers.authorization).toBeUndefined();
    expect(body(m, 0).web_search_options).toBeUndefined();
    expect(body(m, 0).tools).toBeUndefined();
  });
});
