// Full loops through createClient against the Responses API mock over real HTTP.

import * as v from "valibot";
import { afterEach, describe, expect, it } from "vitest";
import { openai, openaiCompatible } from "../../adapters/openai/index.js";
import { createClient, type Message, type StreamEvent, tool, webSearch } from "../../src/index.js";
import { type OpenAIMock, sseEvent } from "../mock/openai-chat.js";
import { type OpenAIResponsesMockOptions, startOpenAIResponsesMock } from "../mock/openai-responses.js";

const KEY = "sk-test-responses-9d3e7a1c55";
const mocks: OpenAIMock[] = [];
afterEach(async () => {
  await Promise.all(mocks.splice(0).map((m) => m.close()));
});

async function mock(options: OpenAIResponsesMockOptions = {}): Promise<OpenAIMock> {
  const m = await startOpenAIResponsesMock({ apiKey: KEY, ...options });
  mocks.push(m);
  return m;
}

function provider(m: OpenAIMock, extra: Partial<Parameters<typeof openai>[0]> = {}) {
  return openai({ apiKey: KEY, model: "gpt-5-mini", baseURL: m.url, maxRetries: 0, ...extra });
}

type Item = Record<string, unknown>;
type Body = { input: Item[]; tools?: Item[]; [key: string]: unknown };
const body = (m: OpenAIMock, i: number) => m.requests[i]!.body as Body;

const calls: string[] = [];
const getWeather = tool({
  name: "get_weather",
  description: "Current temperature for a city.",
  input: v.object({ city: v.string(), unit: v.optional(v.picklist(["c", "f"])) }),
  run: async (input) => {
    calls.push(JSON.stringify(input));
    return { city: input.city, temp: 21 };
  },
});

async function collect(stream: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const out: StreamEvent[] = [];
  for await (const e of stream) out.push(e);
  return out;
}

describe("openai() Responses API loops", () => {
  it("runs tools over several steps, statelessly: every request carries the whole conversation", async () => {
    calls.length = 0;
    const m = await mock({
      script: [
        { toolCalls: [{ id: "call_1", name: "get_weather", input: { city: "Paris", unit: null } }] },
        {
          toolCalls: [
            { id: "call_2", name: "get_weather", input: { city: "Lyon", unit: "c" } },
            { id: "call_3", name: "get_weather", input: { city: "Nice", unit: null } },
          ],
        },
        { text: "Paris, Lyon and Nice are all at 21." },
      ],
    });
    const client = createClient({ provider: provider(m), systemPrompt: "Be brief.", tools: [getWeather], parallelTools: true });
    expect(await client.chat("Weather in three cities?")).toBe("Paris, Lyon and Nice are all at 21.");
    expect(calls).toEqual(['{"city":"Paris"}', '{"city":"Lyon","unit":"c"}', '{"city":"Nice"}']);
    const last = body(m, 2);
    expect(last.instructions).toBe("Be brief.");
    expect(last.store).toBe(false);
    expect(last.input.map((i) => i.type ?? i.role)).toEqual([
      "user",
      "function_call",
      "function_call_output",
      "function_call",
      "function_call",
      "function_call_output",
      "function_call_output",
    ]);
    // replayed as the model wrote it, strict nulls included; without the output-only status, and
    // without the item id, which only a reasoning item (there is none) would be paired by
    expect(last.input[1]).toEqual({ type: "function_call", call_id: "call_1", name: "get_weather", arguments: '{"city":"Paris","unit":null}' });
    expect(last.input.filter((i) => i.type === "function_call_output").map((i) => i.call_id)).toEqual(["call_1", "call_2", "call_3"]);
    expect(body(m, 0).tools).toEqual([
      {
        type: "function",
        name: "get_weather",
        description: "Current temperature for a city.",
        parameters: {
          type: "object",
          properties: { city: { type: "string" }, unit: { enum: ["c", "f", null], type: ["string", "null"] } },
          required: ["city", "unit"],
          additionalProperties: false,
        },
        strict: true,
      },
    ]);
  });

  it("streams text and argument deltas and finishes with the loop's events", async () => {
    const m = await mock({
      script: [{ text: "On it.", toolCalls: [{ id: "call_s", name: "get_weather", input: { city: "Oslo", unit: "f" } }] }, { text: "Oslo is at 21." }],
    });
    const events = await collect(createClient({ provider: provider(m), tools: [getWeather] }).stream("Oslo?"));
    expect(body(m, 0).stream).toBe(true);
    const args = events.filter((e) => e.type === "tool-call-delta") as Extract<StreamEvent, { type: "tool-call-delta" }>[];
    expect(args.length).toBeGreaterThan(1);
    expect(args.every((e) => e.callId === "call_s" && e.name === "get_weather")).toBe(true);
    expect(args.map((e) => e.argsDelta).join("")).toBe('{"city":"Oslo","unit":"f"}');
    const text = events
      .filter((e) => e.type === "text-delta")
      .map((e) => (e as { text: string }).text)
      .join("");
    expect(text).toBe("On it.Oslo is at 21.");
    expect(events.at(-1)).toMatchObject({ type: "finish", text: "Oslo is at 21.", steps: 2, toolCalls: 1 });
  });

  it("replays reasoning items with their encrypted content so a stateless server can use them", async () => {
    const m = await mock({
      script: [
        { reasoning: "Need the weather first.", toolCalls: [{ id: "call_r", name: "get_weather", input: { city: "Rome", unit: null } }] },
        { reasoning: "Now answer.", text: "21 in Rome." },
        { text: "Still 21." },
      ],
    });
    const client = createClient({ provider: provider(m, { reasoning: { effort: "low", summary: "auto" } }), tools: [getWeather] });
    expect(await client.chat("Rome?")).toBe("21 in Rome.");
    expect(body(m, 0).include).toEqual(["reasoning.encrypted_content"]);
    expect(body(m, 0).reasoning).toEqual({ effort: "low", summary: "auto" });
    const replayed = body(m, 1).input[1]!;
    expect(replayed.type).toBe("reasoning");
    expect(replayed.encrypted_content).toMatch(/^gAAAAA/);
    expect(replayed.summary).toEqual([{ type: "summary_text", text: "Need the weather first." }]);
    // the call after a reasoning item keeps its item id (the API pairs them by id), not its status
    const call = body(m, 1).input[2]!;
    expect(call).toMatchObject({ type: "function_call", call_id: "call_r" });
    expect(call.id).toMatch(/^fc_/);
    expect(call.status).toBeUndefined();
    // the history round-trips through JSON and the reasoning still replays (the mock checks it)
    const resumed = createClient({
      provider: provider(m, { reasoning: { effort: "low" } }),
      tools: [getWeather],
      history: JSON.parse(JSON.stringify(client.history)) as Message[],
    });
    expect(await resumed.chat("And now?")).toBe("Still 21.");
    expect(body(m, 2).input.filter((i) => i.type === "reasoning")).toHaveLength(2);
  });

  it("asks for encrypted reasoning for reasoning models, but not when responses are stored", async () => {
    const m = await mock({ script: [{ text: "a" }, { text: "b" }, { text: "c" }] });
    await createClient({ provider: provider(m, { model: "gpt-5" }) }).chat("x");
    await createClient({ provider: provider(m, { model: "gpt-4.1" }) }).chat("x");
    await createClient({ provider: provider(m, { model: "o4-mini", store: true }) }).chat("x");
    expect(body(m, 0).include).toEqual(["reasoning.encrypted_content"]);
    expect(body(m, 1).include).toBeUndefined();
    expect(body(m, 2).include).toBeUndefined();
    expect(body(m, 2).store).toBe(true);
  });

  it("with store: true, replays stored reasoning items by id", async () => {
    const m = await mock({ script: [{ reasoning: "thinking", text: "first" }, { text: "second" }] });
    const client = createClient({ provider: provider(m, { model: "gpt-5", store: true }) });
    await client.chat("one");
    expect(await client.chat("two")).toBe("second");
    const reasoning = body(m, 1).input.find((i) => i.type === "reasoning")!;
    expect(reasoning.encrypted_content).toBeUndefined();
  });

  it("attaches native web search, replays the search and the cited message, and counts searches", async () => {
    const m = await mock({
      script: [{ webSearch: { query: "toolloop release", sources: ["https://example.com/news"] }, text: "It was released today." }, { text: "Yes, today." }],
    });
    const client = createClient({ provider: provider(m), tools: [webSearch(), getWeather] });
    const events = await collect(client.stream("When was toolloop released?"));
    expect(body(m, 0).tools!.map((t) => t.type)).toEqual(["function", "web_search"]);
    expect(body(m, 0).tools!.some((t) => t.name === "web_search")).toBe(false);
    const finish = events.at(-1) as Extract<StreamEvent, { type: "finish" }>;
    expect(finish.usage.webSearches).toBe(1);
    expect(finish.text).toBe("It was released today.");
    await client.chat("Sure?");
    const replay = body(m, 1).input;
    expect(replay.map((i) => i.type ?? i.role)).toEqual(["user", "web_search_call", "message", "user"]);
    expect(replay[1]).toMatchObject({ type: "web_search_call", status: "completed", action: { type: "search", query: "toolloop release" } });
    expect((replay[2]!.content as Item[])[0]!.annotations).toEqual([
      { type: "url_citation", start_index: 0, end_index: 22, url: "https://example.com/news", title: "Mock source" },
    ]);
  });

  it("answers ask() through text.format json_schema, strict, with nulls mapped back", async () => {
    const m = await mock({ script: [{ text: '{"city":"Mexico City","country":"Mexico","note":null}' }] });
    const answer = await createClient({ provider: provider(m) }).ask(
      "Largest city?",
      v.object({ city: v.string(), country: v.string(), note: v.optional(v.string()) }),
    );
    expect(answer).toEqual({ city: "Mexico City", country: "Mexico" });
    expect(body(m, 0).text).toEqual({
      format: {
        type: "json_schema",
        name: "response",
        strict: true,
        schema: {
          type: "object",
          properties: { city: { type: "string" }, country: { type: "string" }, note: { type: ["string", "null"] } },
          required: ["city", "country", "note"],
          additionalProperties: false,
        },
      },
    });
  });

  it("ask() with a non-object schema travels wrapped in an object (OpenAI takes object roots only) and comes back unwrapped", async () => {
    const m = await mock({ script: [{ text: '{"value":[{"city":"Oslo","note":null},{"city":"Rome","note":"hot"}]}' }] });
    const client = createClient({ provider: provider(m) });
    const answer = await client.ask("Cities?", v.array(v.object({ city: v.string(), note: v.optional(v.string()) })));
    expect(answer).toEqual([{ city: "Oslo" }, { city: "Rome", note: "hot" }]);
    const format = (body(m, 0).text as { format: Item }).format;
    expect(format.strict).toBe(true);
    expect(format.schema).toMatchObject({ type: "object", required: ["value"], properties: { value: { type: "array" } } });
    expect(client.history.at(-1)).toEqual({ role: "assistant", content: '[{"city":"Oslo"},{"city":"Rome","note":"hot"}]', providerData: expect.anything() });
  });

  it("sends a schema without a strict form non-strict (the API defaults to strict, so it says so)", async () => {
    const m = await mock({ script: [{ text: '{"tags":{"a":"b"}}' }] });
    const schema = v.object({ tags: v.record(v.string(), v.string()) });
    expect(await createClient({ provider: provider(m) }).ask("Tags?", schema)).toEqual({ tags: { a: "b" } });
    expect((body(m, 0).text as { format: Item }).format.strict).toBe(false);
  });

  it("drops replayed calls the loop dropped, and the reasoning item that led to them", async () => {
    const m = await mock({ script: [{ text: "fine" }] });
    const history: Message[] = [
      { role: "user", content: "two calls" },
      {
        role: "assistant",
        content: "",
        toolCalls: [{ id: "call_keep", name: "get_weather", arguments: '{"city":"A"}' }],
        providerData: {
          provider: "openai",
          value: [
            // encrypted, so only the successor rule can drop it (the mock rejects content it did not issue)
            { id: "rs_1", type: "reasoning", summary: [], encrypted_content: "gAAAAA-from-another-session" },
            { id: "fc_1", type: "function_call", call_id: "call_drop", name: "get_weather", arguments: '{"city":"B"}', status: "completed" },
            { id: "fc_2", type: "function_call", call_id: "call_keep", name: "get_weather", arguments: '{"city":"A"}', status: "completed" },
          ],
        },
      },
      { role: "tool", results: [{ callId: "call_keep", name: "get_weather", output: "21", isError: false }] },
    ];
    const client = createClient({ provider: provider(m), tools: [getWeather], history });
    expect(await client.chat("go on")).toBe("fine");
    expect(body(m, 0).input).toEqual([
      { role: "user", content: "two calls" },
      // its reasoning item is gone, so the call goes without the id that would ask for it
      { type: "function_call", call_id: "call_keep", name: "get_weather", arguments: '{"city":"A"}' },
      { type: "function_call_output", call_id: "call_keep", output: "21" },
      { role: "user", content: "go on" },
    ]);
  });

  it("with store: true, a replayed call keeps its item id (a stored response may be referred to by it)", async () => {
    const m = await mock({ script: [{ text: "fine" }] });
    const history: Message[] = [
      { role: "user", content: "one call" },
      {
        role: "assistant",
        content: "",
        toolCalls: [{ id: "call_1", name: "get_weather", arguments: '{"city":"A"}' }],
        providerData: {
          provider: "openai",
          value: [{ id: "fc_1", type: "function_call", call_id: "call_1", name: "get_weather", arguments: '{"city":"A"}', status: "completed" }],
        },
      },
      { role: "tool", results: [{ callId: "call_1", name: "get_weather", output: "21", isError: false }] },
    ];
    expect(await createClient({ provider: provider(m, { store: true }), tools: [getWeather], history }).chat("go on")).toBe("fine");
    expect(body(m, 0).input[1]).toEqual({ id: "fc_1", type: "function_call", call_id: "call_1", name: "get_weather", arguments: '{"city":"A"}' });
  });

  it("encodes another provider's history from the neutral messages", async () => {
    const m = await mock({ script: [{ text: "ok" }] });
    const history: Message[] = [
      { role: "user", content: "hi" },
      {
        role: "assistant",
        content: "Let me look.",
        toolCalls: [{ id: "toolu_1", name: "get_weather", arguments: "" }],
        providerData: { provider: "claude", value: [{ type: "thinking" }] },
      },
      { role: "tool", results: [{ callId: "toolu_1", name: "get_weather", output: '{"error":"cancelled"}', isError: true }] },
    ];
    await createClient({ provider: provider(m), tools: [getWeather], history }).chat("again");
    expect(body(m, 0).input).toEqual([
      { role: "user", content: "hi" },
      { role: "assistant", content: "Let me look." },
      { type: "function_call", call_id: "toolu_1", name: "get_weather", arguments: "{}" },
      { type: "function_call_output", call_id: "toolu_1", output: '{"error":"cancelled"}' },
      { role: "user", content: "again" },
    ]);
  });

  it("forbids tools with tool_choice none on the last call of finalAnswerOnMaxSteps", async () => {
    const m = await mock({ script: [{ toolCalls: [{ id: "c", name: "get_weather", input: { city: "X", unit: null } }] }, { text: "final" }] });
    await createClient({ provider: provider(m), tools: [getWeather], maxSteps: 1, finalAnswerOnMaxSteps: true }).chat("x");
    expect(body(m, 1).tool_choice).toBe("none");
  });

  it("leaves a valid history when aborted mid-stream, and the next chat works", async () => {
    const m = await mock({ script: [{ text: "recovered" }] });
    m.enqueue({
      hold: true,
      sse: [
        sseEvent("response.created", { type: "response.created", response: { id: "resp_x", status: "in_progress", output: [] } }),
        sseEvent("response.output_item.added", {
          type: "response.output_item.added",
          output_index: 0,
          item: { id: "msg_x", type: "message", role: "assistant", content: [] },
        }),
        sseEvent("response.output_text.delta", { type: "response.output_text.delta", item_id: "msg_x", output_index: 0, content_index: 0, delta: "Half" }),
      ],
    });
    const client = createClient({ provider: provider(m) });
    const controller = new AbortController();
    const run = (async () => {
      for await (const e of client.stream("first", { signal: controller.signal })) if (e.type === "text-delta") controller.abort();
    })();
    await expect(run).rejects.toMatchObject({ name: "AbortError" });
    expect(client.history).toEqual([{ role: "user", content: "first" }]);
    expect(await client.chat("second")).toBe("recovered");
  });
});

describe("stream endings and errors (Responses)", () => {
  const created = sseEvent("response.created", { type: "response.created", response: { id: "resp_e", status: "in_progress", output: [] } });

  it("a stream without response.completed is a StreamError", async () => {
    const m = await mock();
    const delta = sseEvent("response.output_text.delta", { type: "response.output_text.delta", item_id: "m", output_index: 0, delta: "x" });
    m.enqueue({ sse: [created, delta] });
    m.enqueue({ sse: [created, delta], cutAfter: true });
    const client = createClient({ provider: provider(m) });
    await expect(collect(client.stream("a"))).rejects.toMatchObject({ code: "stream_error", provider: "openai" });
    await expect(collect(client.stream("b"))).rejects.toMatchObject({ code: "stream_error" });
    expect(client.history.some((x) => x.role === "assistant")).toBe(false);
  });

  it("response.failed is a ProviderError with the error's code", async () => {
    const m = await mock();
    m.enqueue({
      sse: [
        created,
        sseEvent("response.failed", {
          type: "response.failed",
          response: { id: "resp_e", status: "failed", output: [], error: { code: "server_error", message: "The model failed." } },
        }),
      ],
    });
    const err = await collect(createClient({ provider: provider(m) }).stream("a")).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "provider_error", type: "server_error", retryable: true });
    expect((err as Error).message).toContain("The model failed.");
  });

  it("response.incomplete at the token limit finishes with length", async () => {
    const m = await mock();
    const response = {
      id: "resp_i",
      status: "incomplete",
      incomplete_details: { reason: "max_output_tokens" },
      output: [{ id: "msg_i", type: "message", role: "assistant", status: "incomplete", content: [{ type: "output_text", text: "Cut sh", annotations: [] }] }],
      usage: { input_tokens: 5, output_tokens: 16, input_tokens_details: { cached_tokens: 0 } },
    };
    m.enqueue({ sse: [created, sseEvent("response.incomplete", { type: "response.incomplete", response })] });
    m.enqueue({ status: 200, body: response });
    const events = await collect(createClient({ provider: provider(m, { maxOutputTokens: 16 }) }).stream("long"));
    expect(events.find((e) => e.type === "step-finish")).toMatchObject({ finishReason: "length" });
    expect(events.at(-1)).toMatchObject({ type: "finish", text: "Cut sh" });
    const p = provider(m);
    const res = await p.generate({ messages: [{ role: "user", content: "x" }], tools: [], webSearch: false });
    expect(res).toMatchObject({ text: "Cut sh", finishReason: "length", usage: { inputTokens: 5, outputTokens: 16, cacheReadTokens: 0 } });
    expect(body(m, 0).max_output_tokens).toBe(16);
  });

  it("a wrong key is a typed 401 carrying the request id and never the key", async () => {
    const m = await mock({ script: [{ text: "never" }] });
    const err = await createClient({ provider: openai({ apiKey: "sk-bad-000011112222", model: "gpt-5", baseURL: m.url, maxRetries: 0 }) })
      .chat("hi")
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "provider_error", status: 401, type: "invalid_request_error" });
    expect((err as { requestId: string }).requestId).toMatch(/^req_mock/);
    expect(JSON.stringify(err) + String(err)).not.toContain("sk-bad-000011112222");
  });

  it("retries 429 and 5xx with retry-after-ms, sending the same body", async () => {
    const m = await mock({ script: [{ text: "third time" }] });
    m.enqueue({
      status: 429,
      headers: { "retry-after-ms": "3" },
      body: { error: { message: "Rate limit", type: "requests", param: null, code: "rate_limit_exceeded" } },
    });
    m.enqueue({ status: 503, headers: { "retry-after-ms": "3" }, body: { error: { message: "Overloaded", type: "server_error", param: null, code: null } } });
    expect(await createClient({ provider: provider(m, { maxRetries: 2 }) }).chat("hi")).toBe("third time");
    expect(m.requests.map((r) => r.body)).toEqual([m.requests[0]!.body, m.requests[0]!.body, m.requests[0]!.body]);
  });

  it("sends the organization and project headers and custom headers", async () => {
    const m = await mock({ script: [{ text: "ok" }] });
    await createClient({ provider: provider(m, { organization: "org-1", project: "proj-2", headers: { "x-trace": "t" } }) }).chat("hi");
    expect(m.requests[0]!.headers).toMatchObject({
      authorization: `Bearer ${KEY}`,
      "openai-organization": "org-1",
      "openai-project": "proj-2",
      "x-trace": "t",
    });
  });
});

describe("API keys in browsers", () => {
  it("refuses to send a key from a page to OpenAI (or a compatible server) unless allowed; a proxy needs nothing", async () => {
    const request = { messages: [{ role: "user" as const, content: "hi" }], tools: [], webSearch: false };
    const sent: string[] = [];
    const fakeFetch: typeof fetch = async (input) => {
      sent.push(String(input));
      return new Response(
        JSON.stringify({ status: "completed", output: [{ type: "message", role: "assistant", content: [{ type: "output_text", text: "hi back" }] }] }),
        {
          headers: { "content-type": "application/json" },
        },
      );
    };
    const m = await mock({ script: [{ text: "proxied" }] });
    const g = globalThis as Record<string, unknown>;
    g.window = {};
    g.document = {};
    try {
      await expect(openai({ apiKey: KEY, model: "gpt-5", fetch: fakeFetch }).generate(request)).rejects.toMatchObject({ code: "browser_key" });
      await expect(
        openaiCompatible({ apiKey: KEY, model: "m", baseURL: "https://api.example.com/v1", fetch: fakeFetch }).generate(request),
      ).rejects.toMatchObject({ code: "browser_key" });
      expect(sent).toEqual([]);
      expect((await openai({ apiKey: KEY, model: "gpt-5", fetch: fakeFetch, dangerouslyAllowBrowser: true }).generate(request)).text).toBe("hi back");
      expect(sent).toEqual(["https://api.openai.com/v1/responses"]);
      // a proxy that adds the key server-side: the page sends none, or one the proxy expects
      expect((await openai({ apiKey: KEY, model: "gpt-5", baseURL: m.url }).generate(request)).text).toBe("proxied");
    } finally {
      delete g.window;
      delete g.document;
    }
  });
});
