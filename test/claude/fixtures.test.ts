// Every recorded Anthropic response in /work/shared/fixtures/anthropic goes through the real
// adapter over real HTTP (served by the mock's raw queue, cut at random byte boundaries),
// and every stream also goes through the decoder alone, split at random places. The
// decoded result is asserted exactly: text, tool calls with their argument strings,
// finish reason, usage and the providerData content.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toModelResponse } from "../../adapters/claude/decode.js";
import { claude } from "../../adapters/claude/index.js";
import { isToolloopError, type ProviderError } from "../../src/base/errors.js";
import type { ToolCall, Usage } from "../../src/conversation/messages.js";
import type { Delta, FinishReason, ModelResponse } from "../../src/conversation/provider.js";
import paiRequests from "../fixtures/claude/pai-requests.json" with { type: "json" };
import { type ClaudeMock, startClaudeMock } from "../mock/claude.js";
import {
  chunkLines,
  decodePieces,
  fixtureBytes,
  fixtureText,
  jsonlToSSE,
  listFixtures,
  naiveContent,
  randomPieces,
  seededRandom,
  splitStreams,
  sseData,
} from "./helpers.js";

interface Expect {
  text: string | { start: string; length: number };
  toolCalls: ToolCall[];
  finishReason: FinishReason;
  usage: Usage;
  /** The types of the content blocks, in order (providerData). */
  blocks: string[];
  /** Further checks on the content blocks. */
  check?: (content: Record<string, unknown>[]) => void;
}

const call = (id: string, name: string, args: string): ToolCall => ({ id, name, arguments: args });
const SF_ARGS = '{"elements": [{"location": "San Francisco", "temperature": 58, "condition": "sunny"}]}';

/** Streams, one entry per HTTP stream in the file. */
const streamed: Record<string, Expect[]> = {
  "vercel-ai/anthropic-text.chunks.txt": [
    {
      text: "Hello! I'm doing well, thank you for asking. How are you doing today? Is there anything I can help you with?",
      toolCalls: [],
      finishReason: "stop",
      usage: { inputTokens: 12, outputTokens: 30, cacheReadTokens: 0, cacheWriteTokens: 0 },
      blocks: ["text"],
    },
  ],
  "vercel-ai/anthropic-tool-no-args.chunks.txt": [
    {
      text: "I'll update the issue list for you.",
      // the only input_json_delta is "": the arguments are "{}"
      toolCalls: [call("toolu_01QE1WLsSVp5hy5Q3GmGTmjP", "updateIssueList", "{}")],
      finishReason: "tool-calls",
      usage: { inputTokens: 565, outputTokens: 48, cacheReadTokens: 0, cacheWriteTokens: 0 },
      blocks: ["text", "tool_use"],
      check: (c) => expect(c[1]!.input).toEqual({}),
    },
  ],
  "vercel-ai/anthropic-json-tool.1.chunks.txt": [
    {
      text: "",
      toolCalls: [call("toolu_01KFbKqPYSuAKujiL6mTfzYA", "json", SF_ARGS)],
      finishReason: "tool-calls",
      usage: { inputTokens: 849, outputTokens: 47, cacheReadTokens: 0, cacheWriteTokens: 0 },
      blocks: ["tool_use"],
      check: (c) => expect(c[0]!.input).toEqual({ elements: [{ location: "San Francisco", temperature: 58, condition: "sunny" }] }),
    },
  ],
  "vercel-ai/anthropic-json-tool.2.chunks.txt": [
    {
      text: "I'll invoke the JSON response tool.",
      toolCalls: [call("toolu_01KFbKqPYSuAKujiL6mTfzYA", "json", SF_ARGS)],
      finishReason: "tool-calls",
      usage: { inputTokens: 849, outputTokens: 47, cacheReadTokens: 0, cacheWriteTokens: 0 },
      blocks: ["text", "tool_use"],
    },
  ],
  "vercel-ai/anthropic-message-delta-input-tokens.chunks.txt": [
    // message_start said 43 input tokens, message_delta 61: the later, cumulative count wins.
    { text: "pong", toolCalls: [], finishReason: "stop", usage: { inputTokens: 61, outputTokens: 2 }, blocks: ["text"] },
  ],
  "vercel-ai/anthropic-json-output-format.1.chunks.txt": [
    {
      text: { start: '{"characters":[{"name":"Theron Ironheart","class":"warrior"', length: 1267 },
      toolCalls: [],
      finishReason: "stop",
      usage: { inputTokens: 313, outputTokens: 305, cacheReadTokens: 0, cacheWriteTokens: 0 },
      blocks: ["text"],
    },
  ],
  "vercel-ai/anthropic-clear-thinking.1.chunks.txt": [
    {
      text: "925 ÷ 5 = 185",
      toolCalls: [],
      finishReason: "stop",
      usage: { inputTokens: 69, outputTokens: 53, cacheReadTokens: 0, cacheWriteTokens: 0 },
      blocks: ["thinking", "text"],
      check: (c) => {
        expect(c[0]!.thinking).toBe("The previous result was 925. Now I need to divide that by 5.\n\n925 ÷ 5 = 185");
        expect(String(c[0]!.signature)).toMatch(/^EvQBCkYICxgCKkAxhD4NUKFz.*4yzNgvi\/EhT6Ca17BgB$/);
      },
    },
  ],
  "vercel-ai/anthropic-claude-sonnet-5-reasoning-summarized.chunks.txt": [
    {
      text: { start: "# Finding GCD(1071, 462) Using the Euclidean Algorithm\n\n## Step 1", length: 539 },
      toolCalls: [],
      finishReason: "stop",
      // output_tokens_details.thinking_tokens: 62 of the 373 output tokens were thinking
      usage: { inputTokens: 47, outputTokens: 373, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 62 },
      blocks: ["thinking", "text"],
      check: (c) => {
        expect(c[0]!.thinking).toBe(
          "I'm working through the Euclidean algorithm to find the GCD of 1071 and 462, applying successive division until I reach a remainder of zero, which gives me 21 as the greatest common divisor.",
        );
        expect(String(c[0]!.signature)).toMatch(/^EsECCokBCBAYAipA.*L4oPGAE=$/);
      },
    },
  ],
  "vercel-ai/anthropic-web-search-tool.1.chunks.txt": [
    {
      text: { start: "Based on my search results, here are the key tech news developments from today (September 26, 2025):", length: 2402 },
      toolCalls: [],
      finishReason: "stop",
      usage: { inputTokens: 15665, outputTokens: 795, cacheReadTokens: 0, cacheWriteTokens: 0, webSearches: 1 },
      blocks: ["server_tool_use", "web_search_tool_result", ...Array<string>(19).fill("text")],
      check: (c) => {
        expect(c[0]).toMatchObject({ id: "srvtoolu_01Bj5uzzLcYG5hfueSLcDH8k", name: "web_search" });
        expect(typeof (c[0]!.input as { query?: unknown }).query).toBe("string");
        expect((c[1]!.content as unknown[]).length).toBe(10);
        const citations = c.flatMap((b) => (Array.isArray(b.citations) ? b.citations : []));
        expect(citations).toHaveLength(14);
        expect(citations.every((x) => (x as { type: string }).type === "web_search_result_location")).toBe(true);
      },
    },
  ],
  "vercel-ai/anthropic-tool-search-deferred-bm25.chunks.txt": [
    {
      text: { start: "I'll help you with this task. Let me start by reading the note tree", length: 156 },
      toolCalls: [call("toolu_01U8pzAHj2vNdPCA2Kf8JjeN", "readNoteTree", '{"noteId": "d10aa585-982b-4bd9-984e-420f9b3717f7"}')],
      finishReason: "tool-calls",
      usage: { inputTokens: 879, outputTokens: 177, cacheReadTokens: 0, cacheWriteTokens: 0 },
      blocks: ["text", "tool_use", "server_tool_use"],
      check: (c) => {
        // a server tool's streamed input is parsed too, but it is not a call the loop runs
        expect(c[2]).toMatchObject({ name: "tool_search_tool_bm25", input: { query: "add bullet point insert text editor", limit: 5 } });
        expect(c[1]!.caller).toEqual({ type: "direct" });
      },
    },
    {
      text: { start: "Perfect! I can see the current note structure has one bulleted list item", length: 225 },
      toolCalls: [
        call(
          "toolu_01QoRrvXNv6w4vZSyo9cnxP2",
          "executeEditorOperation",
          '{"noteId": "d10aa585-982b-4bd9-984e-420f9b3717f7", "operations": [\n  {\n    "op": "insert_node",\n    "type": "bulletedListItem",\n    "text": "bye",\n    "at": {\n      "type": "path",\n      "path": [1]\n    }\n  }\n]}',
        ),
      ],
      finishReason: "tool-calls",
      usage: { inputTokens: 1398, outputTokens: 213, cacheReadTokens: 0, cacheWriteTokens: 0, webSearches: 0 },
      blocks: ["tool_search_tool_result", "text", "tool_use"],
    },
    {
      text: { start: "Great! I've successfully completed the task.", length: 353 },
      toolCalls: [],
      finishReason: "stop",
      usage: { inputTokens: 1639, outputTokens: 95, cacheReadTokens: 0, cacheWriteTokens: 0 },
      blocks: ["text"],
    },
  ],
  "vercel-ai/synthetic/anthropic-refusal.chunks.txt": [
    {
      text: "",
      toolCalls: [],
      finishReason: "content-filter",
      usage: { inputTokens: 18, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0 },
      blocks: [],
    },
  ],
  "vercel-ai/synthetic/duplicate-message-start.chunks.txt": [
    { text: "Hello, World!", toolCalls: [], finishReason: "stop", usage: { inputTokens: 17, outputTokens: 227 }, blocks: ["text"] },
  ],
  "vercel-ai/synthetic/spliced-message-start.chunks.txt": [
    {
      // the restarted message replaces the abandoned one: no half call survives
      text: "",
      toolCalls: [call("toolu_second", "test-tool", '{"value":"Sparkle Day"}')],
      finishReason: "tool-calls",
      usage: { inputTokens: 17, outputTokens: 65 },
      blocks: ["thinking", "tool_use"],
      check: (c) => expect(c[0]).toEqual({ type: "thinking", thinking: "Let me call the tool.", signature: "sig-second" }),
    },
  ],
  "pydantic-ai/test_request_stream_fallback_for_high_max_tokens.1.sse": [
    { text: "2", toolCalls: [], finishReason: "stop", usage: { inputTokens: 20, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0 }, blocks: ["text"] },
  ],
  "pydantic-ai/test_anthropic_model_thinking_part_stream.1.sse": [
    {
      text: { start: "Here are the basic steps for safely crossing the street:\n\n**At intersections with traffic lights:**", length: 1021 },
      toolCalls: [],
      finishReason: "stop",
      usage: { inputTokens: 43, outputTokens: 282, cacheReadTokens: 0, cacheWriteTokens: 0 },
      blocks: ["thinking", "text"],
      check: (c) => {
        expect(String(c[0]!.thinking)).toMatch(/^This is a straightforward question about pedestrian safety\./);
        expect(String(c[0]!.signature).length).toBeGreaterThan(100);
      },
    },
  ],
  "pydantic-ai/test_anthropic_model_thinking_part_redacted_stream.1.sse": [
    {
      text: { start: "I notice that you've sent what appears to be some kind of test string or command.", length: 359 },
      toolCalls: [],
      finishReason: "stop",
      usage: { inputTokens: 92, outputTokens: 189, cacheReadTokens: 0, cacheWriteTokens: 0 },
      blocks: ["redacted_thinking", "redacted_thinking", "text"],
      check: (c) => {
        expect(String(c[0]!.data)).toMatch(/^EqkECkYIBxgCKkA8AZ4noDfV5VcOJe/);
        expect(String(c[1]!.data)).toMatch(/^EtgBCkYIBxgCKkDQfGkwzflEJP5asG3o/);
      },
    },
  ],
  "pydantic-ai/test_anthropic_web_search_tool_stream.1.sse": [
    {
      text: { start: "Let me search for more specific breaking news stories to get clearer headlines.Based on the search results", length: 1792 },
      toolCalls: [],
      finishReason: "stop",
      usage: { inputTokens: 31772, outputTokens: 644, cacheReadTokens: 0, cacheWriteTokens: 0, webSearches: 2 },
      blocks: ["server_tool_use", "web_search_tool_result", "text", "server_tool_use", "web_search_tool_result", ...Array<string>(17).fill("text")],
      check: (c) => {
        expect(c[0]).toMatchObject({ id: "srvtoolu_01NcU4XNwyxWK6a9tcJZ8wGY", name: "web_search" });
        expect(c[3]).toMatchObject({ id: "srvtoolu_01WiP3ZfXZXSykVQEL78XJ4T", name: "web_search" });
        expect(c.flatMap((b) => (Array.isArray(b.citations) ? b.citations : []))).toHaveLength(9);
      },
    },
  ],
  "pydantic-ai/test_anthropic_native_tool_search_streaming.1.sse": [
    {
      text: "Let me search for a tool that can provide current exchange rate information.I found the right tool! Let me fetch the current USD to EUR exchange rate for you.",
      toolCalls: [call("toolu_01EFn5wTNBYA8Reni8rbmnHT", "get_exchange_rate", '{"from_currency": "USD", "to_currency": "EUR"}')],
      finishReason: "tool-calls",
      usage: { inputTokens: 1591, outputTokens: 175, cacheReadTokens: 0, cacheWriteTokens: 0, webSearches: 0 },
      blocks: ["text", "server_tool_use", "tool_search_tool_result", "text", "tool_use"],
      check: (c) => {
        // pydantic-ai sent this very turn back in its next request: the same blocks, except
        // that it dropped the tool_use's `caller`, which a verbatim replay keeps.
        const next = paiRequests["test_anthropic_native_tool_search_streaming.yaml"][1]!.body as { messages: { content: unknown }[] };
        expect(c[4]!.caller).toEqual({ type: "direct" });
        const { caller: _caller, ...toolUse } = c[4]!;
        expect([...c.slice(0, 4), toolUse]).toEqual(next.messages[1]!.content);
      },
    },
  ],
  "pydantic-ai/test_anthropic_native_tool_search_streaming.2.sse": [
    {
      text: { start: "The current exchange rate is **1 USD = 0.92 EUR**.", length: 227 },
      toolCalls: [],
      finishReason: "stop",
      usage: { inputTokens: 1007, outputTokens: 59, cacheReadTokens: 0, cacheWriteTokens: 0 },
      blocks: ["text"],
    },
  ],
};

/** Non-streaming 200 bodies. Their providerData must be the content array exactly as received. */
const bodies: Record<string, Expect> = {
  "vercel-ai/anthropic-text.json": {
    text: "Hello! I'm doing well, thanks for asking. How are you doing today? Is there anything I can help you with?",
    toolCalls: [],
    finishReason: "stop",
    usage: { inputTokens: 12, outputTokens: 29, cacheReadTokens: 0, cacheWriteTokens: 0 },
    blocks: ["text"],
  },
  "vercel-ai/anthropic-tool-no-args.json": {
    text: { start: "<thinking>\nThe updateIssueList tool was provided in the list of available functions.", length: 255 },
    toolCalls: [call("toolu_01LRmxn9vGM1d2DZSDBowdZ1", "updateIssueList", "{}")],
    finishReason: "tool-calls",
    usage: { inputTokens: 602, outputTokens: 93, cacheReadTokens: 0, cacheWriteTokens: 0 },
    blocks: ["text", "tool_use"],
  },
  "vercel-ai/anthropic-json-tool.1.json": {
    text: "",
    toolCalls: [
      call(
        "toolu_01Q9ExVZnzZj7E2QQYHYtNUa",
        "json",
        JSON.stringify({
          elements: [
            { location: "San Francisco", temperature: -5, condition: "snowy" },
            { location: "London", temperature: 0, condition: "snowy" },
            { location: "Paris", temperature: 23, condition: "cloudy" },
            { location: "Berlin", temperature: -9, condition: "snowy" },
          ],
        }),
      ),
    ],
    finishReason: "tool-calls",
    usage: { inputTokens: 1151, outputTokens: 87, cacheReadTokens: 0, cacheWriteTokens: 0 },
    blocks: ["tool_use"],
  },
  "vercel-ai/anthropic-json-output-format.1.json": {
    text: { start: '{"recipe":{"name":"Classic Lasagna","ingredients":[{"name":"lasagna noodles","amount":"12 sheets"}', length: 2005 },
    toolCalls: [],
    finishReason: "stop",
    usage: { inputTokens: 371, outputTokens: 629, cacheReadTokens: 0, cacheWriteTokens: 0 },
    blocks: ["text"],
  },
  "vercel-ai/anthropic-clear-thinking.1.json": {
    text: "925 ÷ 5 = 185",
    toolCalls: [],
    finishReason: "stop",
    usage: { inputTokens: 69, outputTokens: 33, cacheReadTokens: 0, cacheWriteTokens: 0 },
    blocks: ["thinking", "text"],
  },
  "vercel-ai/anthropic-claude-opus-5-reasoning-high.1.json": {
    text: { start: "## Step 1: Set up the problem\n\nWe want all values of $x$ satisfying", length: 2644 },
    toolCalls: [],
    finishReason: "stop",
    usage: { inputTokens: 51, outputTokens: 1699, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 139 },
    blocks: ["thinking", "text"],
  },
  "vercel-ai/anthropic-web-search-tool.1.json": {
    text: { start: "Let me search for more specific tech news from today (September 26, 2024).Based on the search results, here are", length: 1874 },
    toolCalls: [],
    finishReason: "stop",
    usage: { inputTokens: 27118, outputTokens: 600, cacheReadTokens: 0, cacheWriteTokens: 0, webSearches: 2 },
    blocks: ["server_tool_use", "web_search_tool_result", "text", "server_tool_use", "web_search_tool_result", ...Array<string>(7).fill("text")],
    check: (c) => expect(c.flatMap((b) => (Array.isArray(b.citations) ? b.citations : []))).toHaveLength(3),
  },
  "vercel-ai/anthropic-web-fetch-tool.error.json": {
    text: { start: "I'll fetch the PDF document from the URL you provided to see what it says about AI.I'm unable to access", length: 579 },
    toolCalls: [],
    finishReason: "stop",
    usage: { inputTokens: 1902, outputTokens: 214, cacheReadTokens: 0, cacheWriteTokens: 0, webSearches: 0 },
    blocks: ["text", "server_tool_use", "web_fetch_tool_result", "text"],
    check: (c) => expect(c[2]!.content).toEqual({ type: "web_fetch_tool_result_error", error_code: "unavailable" }),
  },
  "vercel-ai/synthetic/anthropic-refusal.json": {
    text: "",
    toolCalls: [],
    finishReason: "content-filter",
    usage: { inputTokens: 18, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0 },
    blocks: [],
  },
  "pydantic-ai/test_multiple_parallel_tool_calls.1.response.json": {
    text: { start: "I'll help you find out who is the youngest by retrieving information about each family member.", length: 156 },
    toolCalls: [
      call("toolu_0167cfEnoQaPviGdVXA95zcu", "retrieve_entity_info", '{"name":"Alice"}'),
      call("toolu_01EEe2V5HD1Ac4rKiUR4HD2T", "retrieve_entity_info", '{"name":"Bob"}'),
      call("toolu_01XFyAjstT3966qvRynZyVPo", "retrieve_entity_info", '{"name":"Charlie"}'),
      call("toolu_013mnQZbgtK2oe3Mo3XKJsx3", "retrieve_entity_info", '{"name":"Daisy"}'),
    ],
    finishReason: "tool-calls",
    usage: { inputTokens: 423, outputTokens: 202, cacheReadTokens: 0, cacheWriteTokens: 0 },
    blocks: ["text", "tool_use", "tool_use", "tool_use", "tool_use"],
  },
  "pydantic-ai/test_multiple_parallel_tool_calls.2.response.json": {
    text: { start: "Based on the retrieved information, we can see the family relationships:\n- Alice and Bob are married", length: 340 },
    toolCalls: [],
    finishReason: "stop",
    usage: { inputTokens: 771, outputTokens: 77, cacheReadTokens: 0, cacheWriteTokens: 0 },
    blocks: ["text"],
  },
  "pydantic-ai/test_anthropic_native_output_decimal_strict.1.response.json": {
    text: '{"amount":12.34}',
    toolCalls: [],
    finishReason: "stop",
    usage: { inputTokens: 222, outputTokens: 10, cacheReadTokens: 0, cacheWriteTokens: 0 },
    blocks: ["text"],
  },
};

/** Error bodies, served with the status they were recorded with. */
const errors: Record<string, { status: number; type: string; requestId: string; says: string }> = {
  "vercel-ai/anthropic-issue-17366-error.json": {
    status: 400,
    type: "invalid_request_error",
    requestId: "req_011Cd65WVh8Zrvno3NunpJ73",
    says: "unexpected `tool_use_id` found in `tool_result` blocks: srvtoolu_issue_17366_invalid",
  },
  "vercel-ai/anthropic-parallel-provider-client-tools.error.json": {
    status: 400,
    type: "invalid_request_error",
    requestId: "req_011CdKG2NtAD16XZmtMKXVQr",
    says: "`tool_use` ids were found without `tool_result` blocks immediately after: toolu_issue8112_custom",
  },
  "pydantic-ai/test_anthropic_explicit_effort_xhigh_unsupported_model_errors.1.response.json": {
    status: 400,
    type: "invalid_request_error",
    requestId: "req_011Ca7jT9AHpgXgdv8igm4z9",
    says: "This model does not support effort level 'xhigh'",
  },
};

/** The cassettes themselves: their recorded requests are compared in request.test.ts. */
const cassettes = Object.keys(paiRequests).map((f) => `pydantic-ai/${f}`);

function streamBytes(file: string): Uint8Array[] {
  if (file.endsWith(".sse")) return [fixtureBytes(file)];
  return splitStreams(chunkLines(file)).map((lines) => new TextEncoder().encode(jsonlToSSE(lines)));
}

function expectResponse(r: ModelResponse, e: Expect, naive?: Record<string, unknown>[]): void {
  if (typeof e.text === "string") expect(r.text).toBe(e.text);
  else {
    expect(r.text.startsWith(e.text.start)).toBe(true);
    expect(r.text).toHaveLength(e.text.length);
  }
  expect(r.toolCalls).toEqual(e.toolCalls);
  expect(r.finishReason).toBe(e.finishReason);
  expect(r.usage).toEqual(e.usage);
  if (e.blocks.length === 0) {
    expect(r.providerData).toBeUndefined();
    return;
  }
  expect(r.providerData?.provider).toBe("claude");
  const content = r.providerData!.value as Record<string, unknown>[];
  expect(content.map((b) => b.type)).toEqual(e.blocks);
  // plain JSON, so it survives client.history round trips
  expect(JSON.parse(JSON.stringify(content))).toEqual(content);
  if (naive) expect(content).toEqual(naive);
  e.check?.(content);
}

describe("fixture coverage", () => {
  it("every Anthropic fixture file is replayed by this suite or request.test.ts", () => {
    const known = new Set([...Object.keys(streamed), ...Object.keys(bodies), ...Object.keys(errors), ...cassettes]);
    expect(listFixtures().filter((f) => !known.has(f))).toEqual([]);
    expect([...known].filter((f) => !listFixtures().includes(f))).toEqual([]);
  });
});

describe("recorded streams through the adapter over HTTP", () => {
  let mock: ClaudeMock;
  beforeAll(async () => {
    mock = await startClaudeMock();
  });
  afterAll(() => mock.close());

  for (const [file, expects] of Object.entries(streamed)) {
    it(`${file} decodes exactly`, async () => {
      const streams = streamBytes(file);
      expect(streams).toHaveLength(expects.length);
      const provider = claude({ apiKey: "sk-ant-fixture", model: "claude-test", baseURL: mock.url, maxRetries: 0 });
      const random = seededRandom(file.length * 7919);
      for (const [i, bytes] of streams.entries()) {
        mock.enqueue({ sse: randomPieces(bytes, random, 60) });
        const deltas: Delta[] = [];
        const r = await provider.generate({
          messages: [{ role: "user", content: "replay" }],
          tools: [],
          webSearch: false,
          onDelta: (d) => deltas.push(d),
        });
        const naive = naiveContent(sseData(new TextDecoder().decode(bytes)));
        expectResponse(r, expects[i]!, naive.content);
        if (!file.includes("spliced")) {
          // what was streamed adds up to what was returned
          const streamedText = deltas.flatMap((d) => (d.type === "text-delta" ? [d.text] : [])).join("");
          expect(streamedText).toBe(r.text);
          for (const c of r.toolCalls) {
            const args = deltas.flatMap((d) => (d.type === "tool-call-delta" && d.callId === c.id ? [d.argsDelta] : [])).join("");
            expect(args === "" ? "{}" : args).toBe(c.arguments);
          }
        }
      }
    });
  }
});

describe("recorded streams through the decoder, split at random boundaries", () => {
  for (const file of Object.keys(streamed)) {
    it(`${file}: 30 random splits give the same result as one piece`, () => {
      for (const bytes of streamBytes(file)) {
        const whole = toModelResponse(decodePieces([bytes]));
        const random = seededRandom(bytes.length);
        for (let n = 0; n < 30; n++) {
          const pieces = randomPieces(bytes, random, 200);
          expect(toModelResponse(decodePieces(pieces))).toEqual(whole);
        }
      }
    });
  }

  it("the smallest raw stream decodes the same when cut at every single byte", () => {
    const bytes = fixtureBytes("pydantic-ai/test_request_stream_fallback_for_high_max_tokens.1.sse");
    const whole = toModelResponse(decodePieces([bytes]));
    for (let cut = 1; cut < bytes.length; cut++) {
      expect(toModelResponse(decodePieces([bytes.slice(0, cut), bytes.slice(cut)]))).toEqual(whole);
    }
    // and one byte at a time
    expect(toModelResponse(decodePieces(Array.from(bytes, (b) => Uint8Array.of(b))))).toEqual(whole);
  });
});

describe("recorded JSON bodies through the adapter over HTTP", () => {
  let mock: ClaudeMock;
  beforeAll(async () => {
    mock = await startClaudeMock();
  });
  afterAll(() => mock.close());

  for (const [file, e] of Object.entries(bodies)) {
    it(`${file} decodes exactly`, async () => {
      const text = fixtureText(file);
      mock.enqueue({ status: 200, body: text });
      const provider = claude({ apiKey: "sk-ant-fixture", model: "claude-test", baseURL: mock.url, maxRetries: 0 });
      const r = await provider.generate({ messages: [{ role: "user", content: "replay" }], tools: [], webSearch: false });
      const received = (JSON.parse(text) as { content: Record<string, unknown>[] }).content;
      expectResponse(r, e, received.length ? received : undefined);
    });
  }

  for (const [file, e] of Object.entries(errors)) {
    it(`${file} becomes a typed ProviderError`, async () => {
      mock.enqueue({ status: e.status, body: fixtureText(file) });
      const provider = claude({ apiKey: "sk-ant-fixture-key", model: "claude-test", baseURL: mock.url, maxRetries: 3 });
      const before = mock.requests.length;
      const err = (await provider
        .generate({ messages: [{ role: "user", content: "replay" }], tools: [], webSearch: false })
        .catch((x: unknown) => x)) as ProviderError;
      expect(isToolloopError(err, "provider_error")).toBe(true);
      expect(err.status).toBe(e.status);
      expect(err.type).toBe(e.type);
      expect(err.requestId).toBe(e.requestId);
      expect(err.retryable).toBe(false);
      expect(err.message).toContain(e.says);
      expect(mock.requests.length - before).toBe(1); // a 400 is never retried
    });
  }
});
