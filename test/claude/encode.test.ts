// Unit tests of the pure parts: history → messages, the output schema transform, the tool
// schema check, the finish-reason and usage mapping, and the stream decoder's edge cases.
import { describe, expect, it } from "vitest";
import { createStreamDecoder } from "../../adapters/claude/decode.js";
import { type BodySettings, encodeRequest, toWireMessages } from "../../adapters/claude/encode.js";
import { toOutputSchema } from "../../adapters/claude/output-schema.js";
import { checkTools } from "../../adapters/claude/schema-check.js";
import { finishReason, toUsage } from "../../adapters/claude/usage.js";
import { isToolloopError, type ProviderError } from "../../src/base/errors.js";
import type { Message } from "../../src/conversation/messages.js";
import type { Delta } from "../../src/conversation/provider.js";
import { validateRequest } from "../mock/claude.js";

const settings: BodySettings = {
  model: "claude-test",
  maxTokens: 100,
  temperature: undefined,
  topP: undefined,
  topK: undefined,
  stopSequences: undefined,
  thinking: undefined,
  structuredOutput: "native",
  cache: "off",
};

describe("history → messages", () => {
  it("tool results open the next user turn, followed by the user's text", () => {
    const history: Message[] = [
      { role: "user", content: "Weather?" },
      { role: "assistant", content: "", toolCalls: [{ id: "toolu_1", name: "w", arguments: '{"city":"Paris"}' }] },
      { role: "tool", results: [{ callId: "toolu_1", name: "w", output: "21", isError: false }] },
      { role: "user", content: "And tomorrow?" },
    ];
    const messages = toWireMessages(history);
    expect(messages).toEqual([
      { role: "user", content: [{ type: "text", text: "Weather?" }] },
      { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "w", input: { city: "Paris" } }] },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "toolu_1", content: "21" },
          { type: "text", text: "And tomorrow?" },
        ],
      },
    ]);
    expect(validateRequest({ model: "m", max_tokens: 1, messages })).toBeUndefined();
  });

  it("unparsable, fenced, too deep or non-object arguments are sent as input {} (the encoder does not clean them)", () => {
    const messages = toWireMessages([
      { role: "user", content: "Go" },
      {
        role: "assistant",
        content: "",
        toolCalls: [
          { id: "a", name: "t", arguments: '{"x": 1' },
          { id: "b", name: "t", arguments: "[1,2]" },
          { id: "c", name: "t", arguments: "" },
          { id: "d", name: "t", arguments: '```json\n{"y":2}\n```' },
          { id: "e", name: "t", arguments: "[".repeat(200) + "]".repeat(200) },
          { id: "f", name: "t", arguments: '{"y":2}' },
        ],
      },
      { role: "tool", results: ["a", "b", "c", "d", "e", "f"].map((id) => ({ callId: id, name: "t", output: "x", isError: false })) },
    ]);
    expect(messages[1]!.content.map((b) => b.input)).toEqual([{}, {}, {}, {}, {}, { y: 2 }]);
  });

  it("never sends empty or blank text, and drops turns left empty", () => {
    const messages = toWireMessages([
      { role: "user", content: "A" },
      { role: "assistant", content: "  \n" },
      { role: "user", content: "" },
      { role: "user", content: "B" },
    ]);
    expect(messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "A" },
          { type: "text", text: "B" },
        ],
      },
    ]);
  });

  it("an empty error result still has content (the API refuses it empty); an empty success has none", () => {
    const messages = toWireMessages([
      { role: "user", content: "Go" },
      {
        role: "assistant",
        content: "",
        toolCalls: [
          { id: "a", name: "t", arguments: "{}" },
          { id: "b", name: "t", arguments: "{}" },
        ],
      },
      {
        role: "tool",
        results: [
          { callId: "a", name: "t", output: "", isError: true },
          { callId: "b", name: "t", output: "", isError: false },
        ],
      },
    ]);
    expect(messages[2]!.content).toEqual([
      { type: "tool_result", tool_use_id: "a", content: "error", is_error: true },
      { type: "tool_result", tool_use_id: "b" },
    ]);
    expect(validateRequest({ model: "m", max_tokens: 1, messages })).toBeUndefined();
  });

  it("Claude's providerData is replayed verbatim, minus tool_use the loop dropped and blank text", () => {
    const stored = [
      { type: "thinking", thinking: "Plan.", signature: "sig==" },
      { type: "text", text: "" },
      { type: "text", text: "Calling.", citations: null },
      { type: "tool_use", id: "toolu_keep", name: "t", input: { a: 1 }, caller: { type: "direct" } },
      { type: "tool_use", id: "toolu_dropped", name: "t", input: { a: 2 } },
      { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { query: "q" } },
    ];
    const storedBefore = JSON.stringify(stored);
    const messages = toWireMessages([
      { role: "user", content: "Go" },
      {
        role: "assistant",
        content: "Calling.",
        toolCalls: [{ id: "toolu_keep", name: "t", arguments: '{"a":1}' }],
        providerData: { provider: "claude", value: stored },
      },
      { role: "tool", results: [{ callId: "toolu_keep", name: "t", output: "ok", isError: false }] },
    ]);
    expect(messages[1]!.content).toEqual([stored[0], stored[2], stored[3], stored[5]]);
    // blocks are sent as stored (no per-request clone), and encoding never changes them
    expect(stored).toEqual(JSON.parse(storedBefore));
    expect(validateRequest({ model: "m", max_tokens: 1, messages })).toBeUndefined();
  });

  it("a kept call missing from providerData still gets its tool_use", () => {
    const messages = toWireMessages([
      { role: "user", content: "Go" },
      {
        role: "assistant",
        content: "",
        toolCalls: [{ id: "toolu_x", name: "t", arguments: '{"k":true}' }],
        providerData: { provider: "claude", value: [{ type: "text", text: "Sure." }] },
      },
      { role: "tool", results: [{ callId: "toolu_x", name: "t", output: "ok", isError: false }] },
    ]);
    expect(messages[1]!.content).toEqual([
      { type: "text", text: "Sure." },
      { type: "tool_use", id: "toolu_x", name: "t", input: { k: true } },
    ]);
  });

  it("another provider's providerData is ignored, and its call ids are made valid for both sides", () => {
    const messages = toWireMessages([
      { role: "user", content: "Go" },
      {
        role: "assistant",
        content: "Working.",
        toolCalls: [{ id: "call:abc/1", name: "t", arguments: "{}" }],
        providerData: { provider: "openai", value: [{ type: "reasoning", encrypted_content: "zzz" }] },
      },
      { role: "tool", results: [{ callId: "call:abc/1", name: "t", output: "ok", isError: false }] },
    ]);
    expect(messages[1]!.content).toEqual([
      { type: "text", text: "Working." },
      { type: "tool_use", id: "call_abc_1", name: "t", input: {} },
    ]);
    expect(messages[2]!.content[0]).toMatchObject({ tool_use_id: "call_abc_1" });
    expect(validateRequest({ model: "m", max_tokens: 1, messages })).toBeUndefined();
  });
});

describe("request body", () => {
  const base = { messages: [{ role: "user" as const, content: "Hi" }], tools: [], webSearch: false };

  it("no tools: no tools and no tool_choice; an empty system prompt is left out", () => {
    const body = encodeRequest({ ...base, system: "" }, settings, undefined);
    expect(body).toEqual({ model: "claude-test", max_tokens: 100, messages: [{ role: "user", content: [{ type: "text", text: "Hi" }] }] });
  });

  it("web search alone attaches only the server tool", () => {
    const body = encodeRequest({ ...base, webSearch: true, toolChoice: "none" }, settings, undefined);
    expect(body.tools).toEqual([{ type: "web_search_20250305", name: "web_search" }]);
    expect(body.tool_choice).toEqual({ type: "none" });
  });

  it("a tool without a description is sent without one", () => {
    const body = encodeRequest({ ...base, tools: [{ name: "t", description: "", parameters: { type: "object" } }] }, settings, undefined);
    expect(body.tools).toEqual([{ name: "t", input_schema: { type: "object" } }]);
  });
});

describe("output schema for output_config.format", () => {
  it("closes every object and moves unsupported constraints into the description", () => {
    const schema = {
      type: "object",
      properties: {
        name: { type: "string", minLength: 1, maxLength: 10, description: "Name." },
        tags: { type: "array", items: { type: "object", properties: { t: { type: "number", minimum: 0 } } }, minItems: 2 },
        alt: { anyOf: [{ type: "object", properties: {} }, { type: "null" }] },
        open: { type: "object", additionalProperties: true },
      },
      required: ["name"],
      $defs: { Node: { type: "object", properties: { v: { type: "integer", maximum: 5 } } } },
    };
    const before = structuredClone(schema);
    expect(toOutputSchema(schema)).toEqual({
      type: "object",
      properties: {
        name: { type: "string", description: "Name. {minLength: 1, maxLength: 10}" },
        tags: {
          type: "array",
          items: { type: "object", properties: { t: { type: "number", description: "{minimum: 0}" } }, additionalProperties: false },
          description: "{minItems: 2}",
        },
        alt: { anyOf: [{ type: "object", properties: {}, additionalProperties: false }, { type: "null" }] },
        open: { type: "object", additionalProperties: true },
      },
      required: ["name"],
      additionalProperties: false,
      $defs: { Node: { type: "object", properties: { v: { type: "integer", description: "{maximum: 5}" } }, additionalProperties: false } },
    });
    expect(schema).toEqual(before); // the caller's schema is not touched
  });
});

describe("checkTools", () => {
  it("takes any object schema as is", () => {
    expect(() =>
      checkTools([
        { name: "a", description: "", parameters: { type: "object" } },
        { name: "b", description: "", parameters: { type: "object", properties: { x: { anyOf: [{ $ref: "#/$defs/X" }] } }, $defs: { X: { type: "string" } } } },
      ]),
    ).not.toThrow();
  });

  it("rejects a top-level type other than object, naming the tool and the path", () => {
    let err: unknown;
    try {
      checkTools([{ name: "list_things", description: "", parameters: { type: "array", items: {} } }]);
    } catch (e) {
      err = e;
    }
    expect(isToolloopError(err, "unsupported_schema")).toBe(true);
    expect(err).toMatchObject({ provider: "claude", toolName: "list_things", path: "/type" });
    expect(() => checkTools([{ name: "u", description: "", parameters: { anyOf: [{ type: "object" }] } }])).toThrow(/"type": "object"/);
    expect(() => checkTools([{ name: "p", description: "", parameters: { type: "object", properties: [] } }])).toThrow(/properties/);
  });
});

describe("finish reasons and usage", () => {
  it("maps every stop_reason", () => {
    expect(
      ["end_turn", "stop_sequence", "tool_use", "max_tokens", "model_context_window_exceeded", "refusal", "pause_turn", undefined].map(finishReason),
    ).toEqual(["stop", "stop", "tool-calls", "length", "length", "content-filter", "other", "other"]);
  });

  it("counts the whole prompt as input: uncached + cache writes + cache reads, each cached part also alone", () => {
    expect(toUsage({ input_tokens: 5, output_tokens: 6, cache_read_input_tokens: 100, server_tool_use: { web_search_requests: 3 } })).toEqual({
      inputTokens: 105,
      outputTokens: 6,
      cacheReadTokens: 100,
      webSearches: 3,
    });
    // the issue's own example: 3 uncached + 2091 written is a 2094-token prompt
    expect(toUsage({ input_tokens: 3, cache_creation_input_tokens: 2091, cache_read_input_tokens: 0, output_tokens: 9 })).toEqual({
      inputTokens: 2094,
      outputTokens: 9,
      cacheReadTokens: 0,
      cacheWriteTokens: 2091,
    });
    expect(toUsage({ input_tokens: 4, output_tokens: 100, output_tokens_details: { thinking_tokens: 60 } })).toEqual({
      inputTokens: 4,
      outputTokens: 100,
      reasoningTokens: 60,
    });
    expect(toUsage({ input_tokens: null, cache_read_input_tokens: null, server_tool_use: null, output_tokens_details: null })).toEqual({
      inputTokens: 0,
      outputTokens: 0,
    });
  });
});

describe("stream decoder edge cases", () => {
  const ev = (data: unknown, event?: string) => ({ event, data: JSON.stringify(data) });
  const start = ev({ type: "message_start", message: { id: "msg_1", content: [], usage: { input_tokens: 3, output_tokens: 1 } } });

  it("an error event throws ProviderError with its type and request id", () => {
    const d = createStreamDecoder({ requestId: () => "req_hdr" });
    d.push(start);
    let err: unknown;
    try {
      d.push(ev({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } }, "error"));
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({ code: "provider_error", type: "overloaded_error", requestId: "req_hdr", retryable: true });
    expect((err as ProviderError).message).toContain("Overloaded");
  });

  it("malformed data, or content before message_start, is a StreamError", () => {
    const d = createStreamDecoder();
    expect(() => d.push({ data: "{not json" })).toThrow(/malformed/);
    expect(() => createStreamDecoder().push(ev({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }))).toThrow(
      /before message_start/,
    );
    const e = createStreamDecoder();
    e.push(start);
    expect(() => e.push(ev({ type: "content_block_delta", index: 4, delta: { type: "text_delta", text: "x" } }))).toThrow(/never started/);
  });

  it("ignores pings, unknown events and unknown deltas; events after message_stop change nothing", () => {
    const deltas: Delta[] = [];
    const d = createStreamDecoder({}, (x) => deltas.push(x));
    d.push(start);
    d.push(ev({ type: "ping" }));
    d.push(ev({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }));
    d.push(ev({ type: "content_block_delta", index: 0, delta: { type: "future_delta", x: 1 } }));
    d.push(ev({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hi" } }));
    d.push(ev({ type: "future_event" }));
    d.push(ev({ type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 2 } }));
    d.push(ev({ type: "message_stop" }));
    d.push(ev({ type: "error", error: { type: "api_error" } }));
    d.push({ data: "[DONE]" });
    expect(d.finished).toBe(true);
    expect(d.turn()).toMatchObject({ content: [{ type: "text", text: "Hi" }], stopReason: "end_turn", usage: { input_tokens: 3, output_tokens: 2 } });
    expect(deltas).toEqual([{ type: "text-delta", text: "Hi" }]);
  });

  it("keeps the raw text of arguments that do not parse, with input {} for the replay", () => {
    const d = createStreamDecoder();
    d.push(start);
    d.push(ev({ type: "content_block_start", index: 0, content_block: { type: "tool_use", id: "toolu_1", name: "t", input: {} } }));
    d.push(ev({ type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: '{"a": tru' } }));
    d.push(ev({ type: "message_delta", delta: { stop_reason: "max_tokens" }, usage: { output_tokens: 9 } }));
    d.push(ev({ type: "message_stop" }));
    const turn = d.turn();
    expect(turn.content).toEqual([{ type: "tool_use", id: "toolu_1", name: "t", input: {} }]);
    expect(turn.rawArguments).toEqual(['{"a": tru']);
  });

  it("a second message_start restarts the message: blocks and usage of the abandoned one are gone", () => {
    const d = createStreamDecoder();
    d.push(ev({ type: "message_start", message: { id: "msg_a", content: [], usage: { input_tokens: 50, cache_read_input_tokens: 7 } } }));
    d.push(ev({ type: "content_block_start", index: 0, content_block: { type: "text", text: "abandoned " } }));
    d.push(ev({ type: "content_block_start", index: 1, content_block: { type: "tool_use", id: "toolu_a", name: "t", input: {} } }));
    d.push(ev({ type: "message_start", message: { id: "msg_b", content: [], usage: { input_tokens: 5 } } }));
    d.push(ev({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }));
    d.push(ev({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "fresh" } }));
    d.push(ev({ type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 1 } }));
    d.push(ev({ type: "message_stop" }));
    expect(d.turn()).toMatchObject({ id: "msg_b", content: [{ type: "text", text: "fresh" }], usage: { input_tokens: 5, output_tokens: 1 } });
    expect(d.turn().usage.cache_read_input_tokens).toBeUndefined();
  });

  it("result() before message_stop is a StreamError", () => {
    const d = createStreamDecoder();
    expect(() => d.turn()).toThrow(/before message_start/);
    d.push(start);
    expect(() => d.turn()).toThrow(/before message_stop/);
  });
});
