// The request bodies the adapter builds, checked against the official OpenAI OpenAPI
// document (CreateResponse, CreateChatCompletionRequest) and compared with request bodies
// real clients sent to api.openai.com (the pydantic-ai VCR cassettes).

import { readFileSync } from "node:fs";
import * as v from "valibot";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeChatRequest } from "../../adapters/openai/chat-encode.js";
import { openai, openaiChat } from "../../adapters/openai/index.js";
import { encodeResponsesRequest } from "../../adapters/openai/responses-encode.js";
import { prepareTools } from "../../adapters/openai/strict-mode.js";
import { toStrictSchema } from "../../adapters/openai/strict-schema.js";
import { createClient, jsonTool, type Message, tool, webSearch } from "../../src/index.js";
import { type OpenAIMock, startOpenAIChatMock } from "../mock/openai-chat.js";
import { startOpenAIResponsesMock } from "../mock/openai-responses.js";
import { FIXTURES, fixtureJSON, fixtureText } from "./support/fixtures.js";
import { specValidator } from "./support/openapi.js";
import { parseYAML } from "./support/yaml.js";

const KEY = "sk-spec-check-000111222";
let validateResponses: ReturnType<typeof specValidator>;
let validateChat: ReturnType<typeof specValidator>;
let chatMock: OpenAIMock;
let responsesMock: OpenAIMock;

beforeAll(async () => {
  validateResponses = specValidator("CreateResponse");
  validateChat = specValidator("CreateChatCompletionRequest");
  chatMock = await startOpenAIChatMock({ apiKey: KEY, script: (_body, i) => script[i % script.length]! });
  responsesMock = await startOpenAIResponsesMock({ apiKey: KEY, script: (_body, i) => responsesScript[i % responsesScript.length]! });
}, 60_000);
afterAll(async () => {
  await chatMock.close();
  await responsesMock.close();
});

const getWeather = tool({
  name: "get_weather",
  description: "Current temperature for a city.",
  input: v.object({ city: v.string(), unit: v.optional(v.picklist(["c", "f"])) }),
  run: async ({ city }) => ({ city, temp: 21 }),
});
const search = jsonTool({
  name: "search_docs",
  description: "Search the docs.",
  parameters: { type: "object", properties: { q: { type: "string", minLength: 1 }, tags: { type: "array", items: { type: "string" } } }, required: ["q"] },
  run: () => "no results",
});

const script = [
  {
    toolCalls: [
      { id: "call_w", name: "get_weather", input: { city: "Paris", unit: null } },
      { id: "call_s", name: "search_docs", input: { q: "x" } },
    ],
  },
  { text: '{"city":"Paris","temp":21}' },
];
const responsesScript = [
  { reasoning: "Checking.", toolCalls: [{ id: "call_w", name: "get_weather", input: { city: "Paris", unit: null } }] },
  { webSearch: { query: "paris weather" }, text: "Sunny, 21." },
  { text: '{"city":"Paris","temp":21}' },
];

/** Every request a short but complete conversation sends: tools, results, search, structured output, stream. */
async function conversation(provider: ReturnType<typeof openai>, mock: OpenAIMock): Promise<unknown[]> {
  const from = mock.requests.length;
  const client = createClient({ provider, systemPrompt: "Be brief.", tools: [getWeather, search, webSearch()], parallelTools: true });
  // content parts and a forced tool choice ride along, so their shapes are checked too
  await client.chat(
    [
      { type: "text", text: "Weather in Paris?" },
      { type: "image", mediaType: "image/png", data: "iVBORw0KGgo=" },
    ],
    { toolChoice: "required" },
  );
  for await (const _ of client.stream("And the docs?")) void _;
  await client.ask("As JSON.", v.object({ city: v.string(), temp: v.number() }));
  const last = createClient({ provider, tools: [getWeather], maxSteps: 1, finalAnswerOnMaxSteps: true, history: client.history });
  await last.chat("Once more.").catch(() => undefined);
  return mock.requests.slice(from).map((r) => r.body);
}

function expectValid(issues: { path: string; message: string }[], what: string): void {
  expect(issues, `${what}: ${JSON.stringify(issues.slice(0, 5))}`).toEqual([]);
}

describe("request bodies against the OpenAPI document", () => {
  it("the validator accepts the recorded request bodies and rejects broken ones", () => {
    const files = [
      ["responses/pydantic-ai/test_native_output.yaml", "responses"],
      ["responses/pydantic-ai/test_openai_responses_model_retry.yaml", "responses"],
      ["responses/pydantic-ai/test_openai_responses_stream.yaml", "responses"],
      ["responses/pydantic-ai/test_openai_responses_model_simple_response.yaml", "responses"],
      ["responses/pydantic-ai/test_reasoning_summary_auto.yaml", "responses"],
      ["responses/pydantic-ai/test_openai_responses_model_web_search_tool_stream.yaml", "responses"],
      ["chat/pydantic-ai/test_openai_native_output.yaml", "chat"],
      ["chat/pydantic-ai/test_run_stream_sync_streams_real_model.yaml", "chat"],
      ["chat/pydantic-ai/test_complex_agent_run_in_flow.yaml", "chat"],
      ["chat/pydantic-ai/test_openai_web_search_tool.yaml", "chat"],
    ] as const;
    let checked = 0;
    for (const [file, api] of files) {
      for (const interaction of cassette(file).interactions) {
        // null is how the cassettes write "not sent"
        const b = dropNulls(interaction.request.parsed_body);
        expectValid((api === "chat" ? validateChat : validateResponses)(b), file);
        checked++;
      }
    }
    expect(checked).toBe(18);
    expect(validateChat({ model: "gpt-4o", messages: [{ role: "robot", content: "hi" }] })).not.toEqual([]);
    expect(validateResponses({ model: "gpt-4o", input: [{ type: "function_call", call_id: 1 }] })).not.toEqual([]);
    expect(validateResponses({ model: "gpt-4o", input: "hi", tools: [{ type: "function", name: "f", parameters: {} }] })).not.toEqual([]); // strict is required
  });

  it("Responses: every body of a full conversation is a valid CreateResponse", async () => {
    const bodies = await conversation(
      openai({ apiKey: KEY, model: "gpt-5", baseURL: responsesMock.url, reasoning: { effort: "low", summary: "auto" }, maxOutputTokens: 500, temperature: 1 }),
      responsesMock,
    );
    expect(bodies.length).toBeGreaterThanOrEqual(5);
    const kinds = new Set<string>();
    for (const b of bodies) {
      expectValid(validateResponses(b), JSON.stringify(b).slice(0, 200));
      for (const i of (b as { input: { type?: string; role?: string }[] }).input) kinds.add(i.type ?? `message:${i.role}`);
    }
    // the conversation exercised every kind of input item the adapter writes
    expect([...kinds].sort()).toEqual(["function_call", "function_call_output", "message", "message:user", "reasoning", "web_search_call"].sort());
    expect(bodies.some((b) => (b as { text?: unknown }).text !== undefined)).toBe(true);
    expect(bodies.some((b) => (b as { stream?: boolean }).stream === true)).toBe(true);
    expect(bodies.some((b) => (b as { tool_choice?: string }).tool_choice === "none")).toBe(true);
    expect(bodies.some((b) => (b as { tool_choice?: string }).tool_choice === "required")).toBe(true);
    expect(JSON.stringify(bodies[0])).toContain('"type":"input_image"');
  });

  it("Chat Completions: every body of a full conversation is a valid CreateChatCompletionRequest", async () => {
    const bodies = await conversation(
      openaiChat({ apiKey: KEY, model: "gpt-4o", baseURL: chatMock.url, maxOutputTokens: 500, reasoning: { effort: "low" } }),
      chatMock,
    );
    expect(bodies.length).toBeGreaterThanOrEqual(5);
    for (const b of bodies) expectValid(validateChat(b), JSON.stringify(b).slice(0, 200));
    const roles = new Set(bodies.flatMap((b) => (b as { messages: { role: string }[] }).messages.map((m) => m.role)));
    expect([...roles].sort()).toEqual(["assistant", "system", "tool", "user"]);
    expect(bodies.some((b) => (b as { response_format?: unknown }).response_format !== undefined)).toBe(true);
    expect(bodies.some((b) => (b as { stream_options?: unknown }).stream_options !== undefined)).toBe(true);
    expect(bodies.some((b) => (b as { web_search_options?: unknown }).web_search_options !== undefined)).toBe(true);
    expect(bodies.some((b) => (b as { tool_choice?: string }).tool_choice === "required")).toBe(true);
    expect(JSON.stringify(bodies[0])).toContain('"type":"image_url"');
  });

  it("replaying real recorded output items (reasoning, web search, phases, citations) makes valid input", () => {
    for (const file of [
      "responses/vercel-ai/openai-web-search-tool.1.json",
      "responses/vercel-ai/openai-reasoning-encrypted-content.1.json",
      "responses/vercel-ai/openai-phase.1.json",
      "responses/pydantic-ai/test_openai_responses_model_web_search_tool_stream.2.response.json",
      "responses/pydantic-ai/test_native_output.1.response.json",
    ]) {
      const output = (fixtureJSON(file) as { output: { type: string; call_id?: string; name?: string; arguments?: string }[] }).output;
      const calls = output.filter((i) => i.type === "function_call").map((i) => ({ id: i.call_id!, name: i.name!, arguments: i.arguments! }));
      const history: Message[] = [
        { role: "user", content: "question" },
        { role: "assistant", content: "answer", providerData: { provider: "openai", value: output }, ...(calls.length ? { toolCalls: calls } : {}) },
      ];
      if (calls.length) history.push({ role: "tool", results: calls.map((c) => ({ callId: c.id, name: c.name, output: "x", isError: false })) });
      history.push({ role: "user", content: "follow-up" });
      const b = encodeResponsesRequest(
        { messages: history, tools: [], webSearch: true },
        { provider: "openai", model: "gpt-5", store: false, includeEncryptedReasoning: true },
        [],
        undefined,
        false,
      );
      expectValid(validateResponses(b), file);
    }
  });
});

interface Cassette {
  interactions: { request: { parsed_body: Record<string, unknown> } }[];
}
function cassette(rel: string): Cassette {
  return parseYAML(readFileSync(`${FIXTURES}/${rel}`, "utf8")) as Cassette;
}
function dropNulls(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null));
}

describe("request bodies against what real clients sent", () => {
  it("Responses: tool results after parallel calls match test_openai_responses_model_retry", () => {
    const recorded = cassette("responses/pydantic-ai/test_openai_responses_model_retry.yaml").interactions[1]!.request.parsed_body as {
      input: Record<string, unknown>[];
      tools: Record<string, unknown>[];
    };
    const calls = recorded.input.filter((i) => i.type === "function_call");
    const outputs = recorded.input.filter((i) => i.type === "function_call_output");
    const history: Message[] = [
      { role: "user", content: "What is the location of Londos and London?" },
      { role: "assistant", content: "", toolCalls: calls.map((c) => ({ id: String(c.call_id), name: String(c.name), arguments: String(c.arguments) })) },
      { role: "tool", results: outputs.map((o) => ({ callId: String(o.call_id), name: "get_location", output: String(o.output), isError: false })) },
    ];
    const parameters = { type: "object", properties: { loc_name: { type: "string" } }, required: ["loc_name"] };
    const tools = prepareTools([{ name: "get_location", description: "", parameters }], "strict");
    const b = encodeResponsesRequest(
      { messages: history, tools: [], webSearch: false },
      { provider: "openai", model: "gpt-4o", store: false, includeEncryptedReasoning: false },
      tools,
      undefined,
      false,
    );
    // pydantic-ai also sends an empty assistant message; an empty turn says nothing, so toolloop leaves it out
    expect(b.input).toEqual(recorded.input.filter((i) => !(i.role === "assistant" && i.content === "")));
    expect(b.tools).toEqual(recorded.tools);
  });

  it("Responses: the structured-output format matches test_native_output", () => {
    const recorded = cassette("responses/pydantic-ai/test_native_output.yaml").interactions[0]!.request.parsed_body as { text: unknown };
    const schema = { type: "object", properties: { city: { type: "string" }, country: { type: "string" } }, required: ["city", "country"] };
    const b = encodeResponsesRequest(
      { messages: [{ role: "user", content: "q" }], tools: [], webSearch: false },
      { provider: "openai", model: "gpt-4o", store: false, includeEncryptedReasoning: false },
      [],
      { name: "CityLocation", description: "", ...strictOf(schema) },
      false,
    );
    expect(b.text).toEqual(recorded.text);
  });

  it("Responses: replaying a recorded web-search stream sends the same items, with the same encrypted reasoning", async () => {
    const recorded = cassette("responses/pydantic-ai/test_openai_responses_model_web_search_tool_stream.yaml").interactions[1]!.request.parsed_body as {
      input: { id?: string; type?: string; encrypted_content?: string }[];
    };
    const m = await startOpenAIResponsesMock({ apiKey: KEY });
    try {
      m.enqueue({ sse: [fixtureText("responses/pydantic-ai/test_openai_responses_model_web_search_tool_stream.1.sse")] });
      m.enqueue({ status: 200, body: fixtureJSON("responses/pydantic-ai/test_openai_responses_model_web_search_tool_stream.2.response.json") });
      const client = createClient({
        provider: openai({ apiKey: KEY, model: "gpt-5", baseURL: m.url }),
        systemPrompt: "You are a helpful assistant.",
        tools: [webSearch()],
      });
      for await (const _ of client.stream("What is the weather in San Francisco today?")) void _;
      expect(await client.chat("how about Mexico City?")).toMatch(/^Mexico City weather today/);
      const sent = (m.requests[1]!.body as { input: typeof recorded.input }).input;
      const shape = (items: typeof sent) => items.map((i) => [i.type ?? "message", i.id, i.encrypted_content]);
      expect(shape(sent)).toEqual(shape(recorded.input));
      expect((m.requests[1]!.body as { include: string[] }).include).toContain("reasoning.encrypted_content");
    } finally {
      await m.close();
    }
  });

  it("Chat: the history after a streamed tool call matches test_run_stream_sync_streams_real_model", () => {
    const recorded = cassette("chat/pydantic-ai/test_run_stream_sync_streams_real_model.yaml").interactions[1]!.request.parsed_body as {
      messages: Record<string, unknown>[];
      tools: { function: Record<string, unknown> }[];
      stream_options: unknown;
    };
    const [user, assistant, toolMsg] = recorded.messages as [
      { content: string },
      { tool_calls: { id: string; function: { name: string; arguments: string } }[] },
      { content: string; tool_call_id: string },
    ];
    const history: Message[] = [
      { role: "user", content: user.content },
      { role: "assistant", content: "", toolCalls: assistant.tool_calls.map((c) => ({ id: c.id, name: c.function.name, arguments: c.function.arguments })) },
      { role: "tool", results: [{ callId: toolMsg.tool_call_id, name: "get_capital", output: toolMsg.content, isError: false }] },
    ];
    const parameters = { type: "object", properties: { country: { type: "string" } }, required: ["country"] };
    const tools = prepareTools([{ name: "get_capital", description: "", parameters }], "strict");
    const b = encodeChatRequest(
      { messages: history, tools: [], webSearch: false },
      {
        model: "gpt-4o-mini",
        capabilities: { parallelToolCalls: false, streamOptions: true, developerRole: false, maxTokensField: "max_completion_tokens", webSearchOptions: false },
      },
      tools,
      undefined,
      true,
    );
    expect(b.messages).toEqual(recorded.messages);
    expect(b.tools).toEqual(recorded.tools);
    expect(b.stream_options).toEqual(recorded.stream_options);
  });

  it("Chat: where a real client sent a tool strict, toolloop's compiler makes the same schema", () => {
    const recorded = cassette("chat/pydantic-ai/test_complex_agent_run_in_flow.yaml").interactions[0]!.request.parsed_body as {
      tools: { function: { name: string; parameters: Record<string, unknown>; strict?: boolean } }[];
    };
    const strictOnes = recorded.tools.filter((t) => t.function.strict === true);
    expect(strictOnes.length).toBe(6);
    for (const t of strictOnes) {
      const r = toStrictSchema(t.function.parameters);
      expect(r.strict, t.function.name).toBe(true);
      if (r.strict) expect(r.schema, t.function.name).toEqual(t.function.parameters);
    }
  });
});

function strictOf(schema: Record<string, unknown>) {
  const r = toStrictSchema(schema);
  if (!r.strict) throw new Error(`no strict form at ${r.path}`);
  return { schema: r.schema, strict: true as const, original: schema };
}
