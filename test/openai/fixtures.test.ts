// Every recorded OpenAI response in /work/shared/fixtures/openai replayed through the real
// adapter over real HTTP (mock servers answer with the recorded bytes), and every recorded
// stream fed to the decoders cut at random byte boundaries. Expected values were read off
// the recordings (see PROVENANCE.md); the oracles below read the recordings independently.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createChatStreamDecoder } from "../../adapters/openai/chat-decode.js";
import { openai, openaiChat } from "../../adapters/openai/index.js";
import { createResponsesStreamDecoder } from "../../adapters/openai/responses-decode.js";
import type { ToolCall, Usage } from "../../src/conversation/messages.js";
import type { Delta, FinishReason, ModelResponse } from "../../src/conversation/provider.js";
import { type OpenAIMock, startOpenAIChatMock } from "../mock/openai-chat.js";
import { startOpenAIResponsesMock } from "../mock/openai-responses.js";
import {
  chatSSE,
  feedSSE,
  fixtureJSON,
  fixtureText,
  jsonLines,
  randomCuts,
  randomStringCuts,
  responsesSSE,
  rng,
  splitResponsesStreams,
  ssePayloads,
} from "./support/fixtures.js";

const KEY = "sk-fixture-0123456789abcdef";
let chatMock: OpenAIMock;
let responsesMock: OpenAIMock;

beforeAll(async () => {
  chatMock = await startOpenAIChatMock({ apiKey: KEY });
  responsesMock = await startOpenAIResponsesMock({ apiKey: KEY });
});
afterAll(async () => {
  await chatMock.close();
  await responsesMock.close();
});

interface Expected {
  text?: string;
  /** For long texts: length plus how it starts (the full text is checked against an oracle). */
  textLength?: number;
  textStart?: string;
  toolCalls: ToolCall[];
  finishReason: FinishReason;
  usage: Usage;
}

/**
 * inputTokens counts cached prompt tokens too (input_tokens / prompt_tokens already do),
 * outputTokens the reasoning ones; webSearches counts web_search_call items whose action is a
 * search (not the open_page / find_in_page actions on pages already found).
 */
function usage(inputTokens: number, outputTokens: number, cacheReadTokens: number, reasoningTokens: number, webSearches?: number): Usage {
  const u: Usage = { inputTokens, outputTokens, cacheReadTokens, reasoningTokens };
  if (webSearches !== undefined) u.webSearches = webSearches;
  return u;
}

function checkExpected(res: ModelResponse, exp: Expected): void {
  if (exp.text !== undefined) expect(res.text).toBe(exp.text);
  if (exp.textLength !== undefined) expect(res.text.length).toBe(exp.textLength);
  if (exp.textStart !== undefined) expect(res.text.startsWith(exp.textStart)).toBe(true);
  expect(res.toolCalls).toEqual(exp.toolCalls);
  expect(res.finishReason).toBe(exp.finishReason);
  expect(res.usage).toEqual(exp.usage);
}

async function generate(api: "chat" | "responses", stream: boolean): Promise<{ res: ModelResponse; deltas: Delta[] }> {
  const mock = api === "chat" ? chatMock : responsesMock;
  const provider = (api === "chat" ? openaiChat : openai)({ apiKey: KEY, model: "gpt-replay", baseURL: mock.url, maxRetries: 0 });
  const deltas: Delta[] = [];
  const res = await provider.generate({
    messages: [{ role: "user", content: "replay" }],
    tools: [],
    webSearch: false,
    ...(stream ? { onDelta: (d: Delta) => deltas.push(d) } : {}),
  });
  return { res, deltas };
}

/** Replays raw SSE text over HTTP, written in a few random pieces. */
async function replaySSE(api: "chat" | "responses", sse: string, seed: number) {
  const mock = api === "chat" ? chatMock : responsesMock;
  mock.enqueue({ sse: randomStringCuts(sse, rng(seed), 6) });
  return generate(api, true);
}

async function replayJSON(api: "chat" | "responses", body: unknown) {
  const mock = api === "chat" ? chatMock : responsesMock;
  mock.enqueue({ status: 200, body });
  return generate(api, false);
}

function textOf(deltas: Delta[]): string {
  return deltas.map((d) => (d.type === "text-delta" ? d.text : "")).join("");
}

function argsOf(deltas: Delta[], callId: string): string {
  return deltas.map((d) => (d.type === "tool-call-delta" && d.callId === callId ? d.argsDelta : "")).join("");
}

/** Decodes one SSE text with the pure decoder, fed in the given byte pieces. */
function decodeChat(pieces: Uint8Array[]): ModelResponse {
  const d = createChatStreamDecoder({ provider: "openai" });
  feedSSE(pieces, (data) => d.push(data));
  return d.finish();
}

function decodeResponses(pieces: Uint8Array[]): ModelResponse {
  const d = createResponsesStreamDecoder({ provider: "openai" });
  feedSSE(pieces, (data) => d.push(data));
  return d.finish();
}

/** The same result whether the bytes come one at a time or in random pieces. */
function checkChunkBoundaries(sse: string, decode: (p: Uint8Array[]) => ModelResponse, expected: ModelResponse, seed: number): void {
  const bytes = new TextEncoder().encode(sse);
  expect(decode([bytes])).toEqual(expected);
  expect(decode(randomCuts(bytes, () => 0, 1))).toEqual(expected); // every single byte
  const random = rng(seed);
  for (let round = 0; round < 12; round++) expect(decode(randomCuts(bytes, random, 1 + round * 9))).toEqual(expected);
}

// ------------------------------------------------------------------ Chat Completions

/** Oracle for chat streams: the text is the concatenation of every delta.content. */
function chatStreamText(sse: string): string {
  return ssePayloads(sse)
    .filter((p) => p !== "[DONE]")
    .map((p) => (JSON.parse(p) as { choices: { delta?: { content?: string | null } }[] }).choices[0]?.delta?.content ?? "")
    .join("");
}

const chatStreams: { file: string; sse: () => string; expected: Expected }[] = [
  {
    file: "chat/pydantic-ai/test_complex_agent_run_in_flow.1.sse",
    sse: () => fixtureText("chat/pydantic-ai/test_complex_agent_run_in_flow.1.sse"),
    expected: {
      text: "",
      toolCalls: [{ id: "call_rI3WKPYvVwlOgCGRjsPP2hEx", name: "get_country", arguments: "{}" }],
      finishReason: "tool-calls",
      usage: usage(398, 10, 0, 0),
    },
  },
  {
    file: "chat/pydantic-ai/test_complex_agent_run_in_flow.2.sse",
    sse: () => fixtureText("chat/pydantic-ai/test_complex_agent_run_in_flow.2.sse"),
    expected: {
      text: "",
      toolCalls: [
        { id: "call_NS4iQj14cDFwc0BnrKqDHavt", name: "get_weather", arguments: '{"city": "Mexico City"}' },
        { id: "call_SkGkkGDvHQEEk0CGbnAh2AQw", name: "get_product_name", arguments: "{}" },
      ],
      finishReason: "tool-calls",
      usage: usage(417, 44, 0, 0),
    },
  },
  {
    file: "chat/pydantic-ai/test_complex_agent_run_in_flow.3.sse",
    sse: () => fixtureText("chat/pydantic-ai/test_complex_agent_run_in_flow.3.sse"),
    expected: {
      text: "",
      toolCalls: [
        {
          id: "call_QcKhHXwXzqOXJUUHJb1TB2V5",
          name: "final_result",
          arguments:
            '{"answers":[{"label":"Capital of the country","answer":"Mexico City"},{"label":"Weather in the capital","answer":"Sunny"},{"label":"Product name","answer":"Pydantic AI"}]}',
        },
      ],
      finishReason: "tool-calls",
      usage: usage(481, 49, 0, 0),
    },
  },
  {
    file: "chat/pydantic-ai/test_run_stream_sync_streams_real_model.1.sse",
    sse: () => fixtureText("chat/pydantic-ai/test_run_stream_sync_streams_real_model.1.sse"),
    expected: {
      text: "",
      toolCalls: [{ id: "call_ZR5UUuTt3pf61kjwAJIYdVMj", name: "get_capital", arguments: '{"country":"UK"}' }],
      finishReason: "tool-calls",
      usage: usage(53, 15, 0, 0),
    },
  },
  {
    file: "chat/pydantic-ai/test_run_stream_sync_streams_real_model.2.sse",
    sse: () => fixtureText("chat/pydantic-ai/test_run_stream_sync_streams_real_model.2.sse"),
    expected: { text: "The capital of the UK is London.", toolCalls: [], finishReason: "stop", usage: usage(78, 9, 0, 0) },
  },
  {
    file: "chat/vercel-ai/azure-model-router.1.chunks.txt",
    sse: () => chatSSE(jsonLines("chat/vercel-ai/azure-model-router.1.chunks.txt")),
    expected: { text: "Capital of Denmark.", toolCalls: [], finishReason: "stop", usage: usage(15, 78, 0, 64) },
  },
  {
    file: "chat/vercel-ai/openai-text.chunks.txt",
    sse: () => chatSSE(jsonLines("chat/vercel-ai/openai-text.chunks.txt")),
    expected: {
      textLength: 1724,
      textStart: "**Holiday Name:** Harmony Day\n\n",
      toolCalls: [],
      finishReason: "stop",
      usage: usage(16, 300, 0, 0),
    },
  },
];

describe("Chat Completions fixtures over HTTP", () => {
  chatStreams.forEach(({ file, sse, expected }, i) => {
    it(`decodes the stream ${file}`, async () => {
      const text = sse();
      const { res, deltas } = await replaySSE("chat", text, 100 + i);
      checkExpected(res, expected);
      expect(res.text).toBe(chatStreamText(text));
      expect(textOf(deltas)).toBe(res.text);
      for (const c of res.toolCalls) expect(argsOf(deltas, c.id) || "{}").toBe(c.arguments);
      expect(res.providerData).toBeUndefined();
      checkChunkBoundaries(text, decodeChat, res, 200 + i);
    });
  });

  const bodies: { file: string; expected: Expected }[] = [
    {
      file: "chat/pydantic-ai/test_openai_native_output.1.response.json",
      expected: {
        text: "",
        toolCalls: [{ id: "call_PkRGedQNRFUzJp2R7dO7avWR", name: "get_user_country", arguments: "{}" }],
        finishReason: "tool-calls",
        usage: usage(71, 12, 0, 0),
      },
    },
    {
      file: "chat/pydantic-ai/test_openai_native_output.2.response.json",
      expected: { text: '{"city":"Mexico City","country":"Mexico"}', toolCalls: [], finishReason: "stop", usage: usage(92, 15, 0, 0) },
    },
    {
      file: "chat/pydantic-ai/test_openai_web_search_tool.1.response.json",
      expected: { text: "May 14, 2025, 8:51:29 AM ", toolCalls: [], finishReason: "stop", usage: usage(11, 17, 0, 0) },
    },
    {
      file: "chat/vercel-ai/openai-text.json",
      expected: { textLength: 1842, textStart: "**Holiday Name:** Galaxy Day  \n\n", toolCalls: [], finishReason: "stop", usage: usage(16, 363, 0, 0) },
    },
  ];
  for (const { file, expected } of bodies) {
    it(`decodes the body ${file}`, async () => {
      const body = fixtureJSON(file) as { choices: { message: { content: string | null } }[] };
      const { res } = await replayJSON("chat", body);
      checkExpected(res, expected);
      expect(res.text).toBe(body.choices[0]!.message.content ?? "");
    });
  }

  const errors: { file: string; status: number; type: string; message: string }[] = [
    {
      file: "chat/pydantic-ai/test_openai_o1_mini_system_role[developer].1.response.json",
      status: 400,
      type: "invalid_request_error",
      message: "Unsupported value: 'messages[0].role' does not support 'developer' with this model.",
    },
    {
      file: "chat/vercel-ai/reasoning-model-legacy-parameter-error.json",
      status: 400,
      type: "invalid_request_error",
      message: "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
    },
  ];
  for (const { file, status, type, message } of errors) {
    it(`turns the error body ${file} into a ProviderError`, async () => {
      chatMock.enqueue({ status, body: fixtureJSON(file), headers: { "x-request-id": "req_fixture_chat" } });
      const err = await generate("chat", false).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toMatchObject({ code: "provider_error", provider: "openai", status, type, requestId: "req_fixture_chat", retryable: false });
      expect((err as Error).message).toContain(message);
    });
  }
});

// ------------------------------------------------------------------ Responses

interface ResponsesStream {
  name: string;
  sse: () => string;
  expected: Expected;
  /** The fixture author removed deltas: the streamed text cannot add up to the final text. */
  trimmed?: boolean;
}

const responsesStreams: ResponsesStream[] = [
  {
    name: "responses/pydantic-ai/test_openai_responses_stream.1.sse",
    sse: () => fixtureText("responses/pydantic-ai/test_openai_responses_stream.1.sse"),
    expected: {
      text: "",
      toolCalls: [{ id: "call_kL0PCQV7M2WMoVX8V8OtYSAL", name: "get_capital", arguments: '{"country":"France"}' }],
      finishReason: "tool-calls",
      usage: usage(255, 16, 0, 0),
    },
  },
  {
    name: "responses/pydantic-ai/test_openai_responses_stream.2.sse",
    sse: () => fixtureText("responses/pydantic-ai/test_openai_responses_stream.2.sse"),
    expected: { text: "The capital of France is Paris.", toolCalls: [], finishReason: "stop", usage: usage(278, 9, 0, 0) },
  },
  {
    name: "responses/pydantic-ai/test_openai_responses_model_web_search_tool_stream.1.sse",
    sse: () => fixtureText("responses/pydantic-ai/test_openai_responses_model_web_search_tool_stream.1.sse"),
    expected: {
      textLength: 212,
      textStart: "San Francisco weather today (Tuesday, September 16, 2025): Mostly sunny",
      toolCalls: [],
      finishReason: "stop",
      usage: usage(9463, 582, 8320, 512, 1),
    },
  },
  {
    name: "responses/vercel-ai/openai-phase.1.chunks.txt",
    sse: () => responsesSSE(jsonLines("responses/vercel-ai/openai-phase.1.chunks.txt")),
    expected: {
      textLength: 1640,
      textStart: "Got it \u2014 I\u2019ll quickly check reliable, up-to-date sources for AI headlines",
      toolCalls: [],
      finishReason: "stop",
      usage: usage(7112, 463, 3072, 64),
    },
    trimmed: true,
  },
  {
    name: "responses/vercel-ai/openai-web-search-tool.1.chunks.txt",
    sse: () => responsesSSE(jsonLines("responses/vercel-ai/openai-web-search-tool.1.chunks.txt")),
    expected: {
      textLength: 3645,
      textStart: "I checked today\u2019s tech headlines (today = December 5, 2025)",
      toolCalls: [],
      finishReason: "stop",
      usage: usage(31073, 4416, 3712, 3712, 2),
    },
  },
  ...(
    [
      [{ id: "call_AB6AaRZ1FYZB2RwS6A5vbdqn", name: "calculator", arguments: '{"a":12,"b":7,"op":"add"}' }, usage(134, 28, 0, 0)],
      [{ id: "call_Q6pW65MUgW9vF59BmItYGos3", name: "calculator", arguments: '{"a":19,"b":3,"op":"multiply"}' }, usage(221, 26, 0, 0)],
      [{ id: "call_Zl5vIMnD7dVAjgU6FkhmiCZh", name: "calculator", arguments: '{"a":57,"b":10,"op":"multiply"}' }, usage(260, 26, 0, 0)],
    ] as const
  ).map(
    ([call, u], k): ResponsesStream => ({
      name: `responses/vercel-ai/openai-reasoning-encrypted-content.1.chunks.txt (stream ${k + 1} of 4)`,
      sse: () => responsesSSE(splitResponsesStreams(jsonLines("responses/vercel-ai/openai-reasoning-encrypted-content.1.chunks.txt"))[k]!),
      expected: { text: "", toolCalls: [{ ...call }], finishReason: "tool-calls", usage: u },
    }),
  ),
  {
    name: "responses/vercel-ai/openai-reasoning-encrypted-content.1.chunks.txt (stream 4 of 4)",
    sse: () => responsesSSE(splitResponsesStreams(jsonLines("responses/vercel-ai/openai-reasoning-encrypted-content.1.chunks.txt"))[3]!),
    expected: { text: "The final result is **570**.", toolCalls: [], finishReason: "stop", usage: usage(299, 12, 0, 0) },
  },
];

/**
 * Oracle for Responses streams: the output items of the terminal event, each replaced by
 * its copy from response.output_item.done where the stream has one (OpenAI documents that
 * copy's encrypted_content as the one to send back; the terminal event re-encrypts it).
 */
function terminalOutput(sse: string): unknown[] {
  const payloads = ssePayloads(sse).map((p) => JSON.parse(p) as { type: string; output_index?: number; item?: unknown; response?: { output: unknown[] } });
  const last = payloads.filter((p) => p.type === "response.completed" || p.type === "response.incomplete").at(-1);
  const done = new Map(payloads.filter((p) => p.type === "response.output_item.done").map((p) => [p.output_index!, p.item]));
  return last!.response!.output.map((item, i) => done.get(i) ?? item);
}

/** Oracle for Responses text: each message's output_text, messages joined by a blank line. */
function outputText(items: unknown[]): string {
  return (items as { type: string; content?: { type: string; text?: string }[] }[])
    .filter((i) => i.type === "message")
    .map((i) =>
      (i.content ?? [])
        .filter((p) => p.type === "output_text")
        .map((p) => p.text ?? "")
        .join(""),
    )
    .filter((t) => t !== "")
    .join("\n\n");
}

describe("Responses fixtures over HTTP", () => {
  responsesStreams.forEach(({ name, sse, expected, trimmed }, i) => {
    it(`decodes the stream ${name}`, async () => {
      const text = sse();
      const { res, deltas } = await replaySSE("responses", text, 300 + i);
      checkExpected(res, expected);
      const output = terminalOutput(text);
      expect(res.providerData).toEqual({ provider: "openai", value: output });
      expect(res.text).toBe(outputText(output));
      if (!trimmed) expect(textOf(deltas)).toBe(res.text);
      for (const c of res.toolCalls) expect(argsOf(deltas, c.id)).toBe(c.arguments);
      checkChunkBoundaries(text, decodeResponses, res, 400 + i);
    });
  });

  it("keeps reasoning items with their encrypted content in providerData", async () => {
    const sse = responsesSSE(splitResponsesStreams(jsonLines("responses/vercel-ai/openai-reasoning-encrypted-content.1.chunks.txt"))[0]!);
    const { res } = await replaySSE("responses", sse, 7);
    const items = res.providerData!.value as { type: string; encrypted_content?: string }[];
    expect(items.map((i) => i.type)).toEqual(["reasoning", "function_call"]);
    expect(items[0]!.encrypted_content).toMatch(/^gAAAAAB/);
  });

  const bodies: { file: string; expected: Expected }[] = [
    {
      file: "responses/pydantic-ai/test_native_output.1.response.json",
      expected: {
        text: "",
        toolCalls: [{ id: "call_tTAThu8l2S9hNky2krdwijGP", name: "get_user_country", arguments: "{}" }],
        finishReason: "tool-calls",
        usage: usage(66, 12, 0, 0),
      },
    },
    {
      file: "responses/pydantic-ai/test_native_output.2.response.json",
      expected: { text: '{"city":"Mexico City","country":"Mexico"}', toolCalls: [], finishReason: "stop", usage: usage(89, 16, 0, 0) },
    },
    {
      file: "responses/pydantic-ai/test_openai_responses_model_retry.1.response.json",
      expected: {
        text: "",
        toolCalls: [
          { id: "call_LWVp74L5HaH2KNvgVz9PJsrj", name: "get_location", arguments: '{"loc_name":"Londos"}' },
          { id: "call_YnRAWeTyxI91m5uNa5bxXwVO", name: "get_location", arguments: '{"loc_name":"London"}' },
        ],
        finishReason: "tool-calls",
        usage: usage(0, 0, 0, 0),
      },
    },
    {
      file: "responses/pydantic-ai/test_openai_responses_model_retry.2.response.json",
      expected: {
        textLength: 175,
        textStart: 'It seems "Londos" might be incorrect or unknown.',
        toolCalls: [],
        finishReason: "stop",
        usage: usage(335, 44, 0, 0),
      },
    },
    {
      file: "responses/pydantic-ai/test_openai_responses_model_simple_response.1.response.json",
      expected: { text: "The capital of France is Paris.", toolCalls: [], finishReason: "stop", usage: usage(14, 8, 0, 0) },
    },
    {
      file: "responses/pydantic-ai/test_openai_responses_model_web_search_tool_stream.2.response.json",
      expected: {
        textLength: 146,
        textStart: "Mexico City weather today (Tuesday, September 16, 2025): Cloudy.",
        toolCalls: [],
        finishReason: "stop",
        usage: usage(9703, 638, 8576, 576, 1),
      },
    },
    {
      file: "responses/pydantic-ai/test_reasoning_summary_auto.1.response.json",
      expected: { textLength: 543, textStart: "```python\ndef factorial(n: int) -> int:", toolCalls: [], finishReason: "stop", usage: usage(34, 226, 0, 59) },
    },
    {
      file: "responses/vercel-ai/openai-phase.1.json",
      expected: {
        textLength: 1368,
        textStart: "I\u2019ll quickly check reliable, up-to-date sources",
        toolCalls: [],
        finishReason: "stop",
        usage: usage(7243, 423, 3072, 58),
      },
    },
    {
      file: "responses/vercel-ai/openai-reasoning-encrypted-content.1.json",
      expected: {
        text: "12 + 7 = 19\n19 \u00d7 3 = 57\n57 \u00d7 10 = 570\n\nFinal result: 570",
        toolCalls: [],
        finishReason: "stop",
        usage: usage(865, 163, 0, 128),
      },
    },
    {
      file: "responses/vercel-ai/openai-web-search-tool.1.json",
      expected: {
        textLength: 3042,
        textStart: "Short answer first \u2014 yes.",
        toolCalls: [],
        finishReason: "stop",
        usage: usage(19681, 3773, 3712, 3136, 1),
      },
    },
  ];
  for (const { file, expected } of bodies) {
    it(`decodes the body ${file}`, async () => {
      const body = fixtureJSON(file) as { output: unknown[] };
      const { res } = await replayJSON("responses", body);
      checkExpected(res, expected);
      expect(res.text).toBe(outputText(body.output));
      expect(res.providerData).toEqual({ provider: "openai", value: body.output });
    });
  }

  const errors: { file: string; status: number; type: string; stream: boolean; message: string }[] = [
    {
      file: "responses/pydantic-ai/test_openai_responses_model_http_error.1.response.json",
      status: 400,
      type: "invalid_request_error",
      stream: true, // recorded for a stream: true request; the answer is JSON
      message: "Invalid 'temperature': decimal below minimum value. Expected a value >= 0, but got -1 instead.",
    },
    {
      file: "responses/vercel-ai/openai-error.1.json",
      status: 429,
      type: "insufficient_quota",
      stream: false,
      message: "You exceeded your current quota, please check your plan and billing details.",
    },
    {
      file: "responses/vercel-ai/reasoning-model-temperature-error.json",
      status: 400,
      type: "invalid_request_error",
      stream: false,
      message: "Unsupported parameter: 'temperature' is not supported with this model.",
    },
  ];
  for (const { file, status, type, stream, message } of errors) {
    it(`turns the error body ${file} into a ProviderError`, async () => {
      responsesMock.enqueue({ status, body: fixtureJSON(file), headers: { "x-request-id": "req_fixture_responses" } });
      const err = await generate("responses", stream).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toMatchObject({ code: "provider_error", provider: "openai", status, type, requestId: "req_fixture_responses" });
      expect((err as Error).message).toContain(message);
      expect((err as Error).message).not.toContain(KEY);
    });
  }

  it("turns the in-stream error of openai-error.1.chunks.txt into a ProviderError with the request id", async () => {
    const sse = responsesSSE(jsonLines("responses/vercel-ai/openai-error.1.chunks.txt"));
    responsesMock.enqueue({ sse: [sse], headers: { "x-request-id": "req_stream_error" } });
    const err = await generate("responses", true).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ code: "provider_error", provider: "openai", type: "insufficient_quota", requestId: "req_stream_error" });
    expect((err as Error).message).toContain("You exceeded your current quota");
    // the same from the pure decoder, whatever the cuts
    const bytes = new TextEncoder().encode(sse);
    const random = rng(9);
    for (let round = 0; round < 5; round++) {
      expect(() => decodeResponses(randomCuts(bytes, random, 16))).toThrow(/insufficient_quota/);
    }
  });
});
