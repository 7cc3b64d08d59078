// The pure decoders on the edge cases servers produce, without a network.
import { describe, expect, it } from "vitest";
import { createChatStreamDecoder, decodeChatBody } from "../../adapters/openai/chat-decode.js";
import { createResponsesStreamDecoder, decodeResponsesBody } from "../../adapters/openai/responses-decode.js";
import type { Delta } from "../../src/conversation/provider.js";

const ctx = { provider: "openai", requestId: () => "req_unit" };

function chat(chunks: unknown[], done = true) {
  const deltas: Delta[] = [];
  const d = createChatStreamDecoder(ctx, (x) => deltas.push(x));
  for (const c of chunks) d.push(JSON.stringify(c));
  if (done) d.push("[DONE]");
  return { res: d.finish(), deltas };
}

const delta = (delta: unknown, finish_reason: string | null = null) => ({ choices: [{ index: 0, delta, finish_reason }] });

describe("chat stream decoder", () => {
  it("starts a new call when a new id arrives on an index already in use", () => {
    const { res, deltas } = chat([
      delta({ tool_calls: [{ index: 0, id: "a", type: "function", function: { name: "one", arguments: '{"x":' } }] }),
      delta({ tool_calls: [{ index: 0, function: { arguments: "1}" } }] }),
      delta({ tool_calls: [{ index: 0, id: "b", type: "function", function: { name: "two", arguments: "" } }] }),
      delta({}, "tool_calls"),
    ]);
    expect(res.toolCalls).toEqual([
      { id: "a", name: "one", arguments: '{"x":1}' },
      { id: "b", name: "two", arguments: "{}" },
    ]);
    expect(res.finishReason).toBe("tool-calls");
    expect(deltas).toEqual([
      { type: "tool-call-delta", callId: "a", name: "one", argsDelta: '{"x":' },
      { type: "tool-call-delta", callId: "a", name: "one", argsDelta: "1}" },
    ]);
  });

  it("reads calls from servers that omit the index or the id, and a repeated id continues its call", () => {
    const { res } = chat([
      delta({ tool_calls: [{ id: "a", function: { name: "one", arguments: '{"a"' } }] }),
      delta({ tool_calls: [{ id: "a", function: { arguments: ":1}" } }] }),
      delta({ tool_calls: [{ index: 3, function: { name: "two", arguments: "{}" } }] }),
    ]);
    expect(res.toolCalls).toEqual([
      { id: "a", name: "one", arguments: '{"a":1}' },
      { id: "call_2", name: "two", arguments: "{}" },
    ]);
    // a server that calls tools but says "stop" still asked for tools
    expect(res.finishReason).toBe("tool-calls");
  });

  it("maps finish reasons", () => {
    expect(chat([delta({ content: "a" }, "length")]).res.finishReason).toBe("length");
    expect(chat([delta({ content: "a" }, "content_filter")]).res.finishReason).toBe("content-filter");
    expect(chat([delta({ content: "a" }, "stop")]).res.finishReason).toBe("stop");
    expect(chat([delta({ content: "a" }, "something_new")]).res.finishReason).toBe("other");
  });

  it("turns a refusal into the text, finished as content-filter", () => {
    const { res, deltas } = chat([
      delta({ role: "assistant", content: null, refusal: "" }),
      delta({ refusal: "I can't help" }),
      delta({ refusal: " with that." }, "stop"),
    ]);
    expect(res).toMatchObject({ text: "I can't help with that.", finishReason: "content-filter" });
    expect(deltas).toEqual([{ type: "text-delta", text: "I can't help with that." }]);
  });

  it("accepts a clean end after finish_reason without [DONE], but not a stream that stopped early", () => {
    expect(chat([delta({ content: "ok" }, "stop")], false).res.text).toBe("ok");
    expect(() => chat([delta({ content: "o" })], false)).toThrow(expect.objectContaining({ code: "stream_error", requestId: "req_unit" }));
  });

  it("takes usage from the last chunk (choices: []) and ignores choices other than the first", () => {
    const { res } = chat([
      { choices: [{ index: 1, delta: { content: "other" }, finish_reason: null }] },
      delta({ content: "mine" }, "stop"),
      { choices: [], usage: { prompt_tokens: 7, completion_tokens: 3, prompt_tokens_details: { cached_tokens: 4 } } },
    ]);
    expect(res).toEqual({ text: "mine", toolCalls: [], finishReason: "stop", usage: { inputTokens: 7, outputTokens: 3, cacheReadTokens: 4 } });
  });

  it("a chunk that is not JSON breaks the stream", () => {
    const d = createChatStreamDecoder(ctx);
    expect(() => d.push("{oops")).toThrow(expect.objectContaining({ code: "stream_error" }));
  });
});

describe("chat body decoder", () => {
  it("reads content parts, generated ids and empty arguments", () => {
    const res = decodeChatBody(ctx, {
      choices: [
        {
          finish_reason: "tool_calls",
          message: {
            content: [
              { type: "text", text: "a" },
              { type: "text", text: "b" },
            ],
            tool_calls: [{ type: "function", function: { name: "f", arguments: "" } }],
          },
        },
      ],
    });
    expect(res).toEqual({
      text: "ab",
      toolCalls: [{ id: "call_1", name: "f", arguments: "{}" }],
      finishReason: "tool-calls",
      usage: { inputTokens: 0, outputTokens: 0 },
    });
  });

  it("reports a body without choices or with an error object", () => {
    expect(() => decodeChatBody(ctx, { choices: [] })).toThrow(expect.objectContaining({ code: "provider_error", type: "invalid_response" }));
    expect(() => decodeChatBody(ctx, { error: { message: "bad", type: "server_error" } })).toThrow(expect.objectContaining({ type: "server_error" }));
  });
});

function responses(events: Record<string, unknown>[]) {
  const deltas: Delta[] = [];
  const d = createResponsesStreamDecoder(ctx, (x) => deltas.push(x));
  for (const e of events) d.push(JSON.stringify(e));
  return { res: d.finish(), deltas };
}

describe("responses stream decoder", () => {
  const msg = (id: string, output_index: number, text: string) => [
    { type: "response.output_item.added", output_index, item: { id, type: "message", role: "assistant", content: [] } },
    { type: "response.output_text.delta", item_id: id, output_index, content_index: 0, delta: text },
  ];

  it("builds the answer from the streamed items when the terminal event carries no output", () => {
    const { res, deltas } = responses([
      ...msg("m1", 0, "Looking."),
      { type: "response.output_item.added", output_index: 1, item: { id: "fc1", type: "function_call", call_id: "c1", name: "f", arguments: "" } },
      { type: "response.function_call_arguments.delta", item_id: "fc1", output_index: 1, delta: '{"q":' },
      { type: "response.function_call_arguments.delta", item_id: "fc1", output_index: 1, delta: "2}" },
      ...msg("m2", 2, "More."),
      { type: "response.completed", response: { status: "completed", usage: { input_tokens: 3, output_tokens: 4 } } },
    ]);
    expect(res.text).toBe("Looking.\n\nMore.");
    expect(
      deltas
        .filter((d) => d.type === "text-delta")
        .map((d) => (d as { text: string }).text)
        .join(""),
    ).toBe(res.text);
    expect(res.toolCalls).toEqual([{ id: "c1", name: "f", arguments: '{"q":2}' }]);
    expect(res.finishReason).toBe("tool-calls");
    expect(res.usage).toEqual({ inputTokens: 3, outputTokens: 4 });
    expect((res.providerData!.value as { type: string }[]).map((i) => i.type)).toEqual(["message", "function_call", "message"]);
  });

  it("reasoning summary deltas are reasoning-delta events, one blank line between summary parts and items", () => {
    const sum = (item_id: string, output_index: number, summary_index: number, delta: string) => ({
      type: "response.reasoning_summary_text.delta",
      item_id,
      output_index,
      summary_index,
      delta,
    });
    const { deltas } = responses([
      { type: "response.output_item.added", output_index: 0, item: { id: "rs1", type: "reasoning", summary: [] } },
      sum("rs1", 0, 0, "**Plan**"),
      sum("rs1", 0, 0, " first."),
      sum("rs1", 0, 1, "Then check."),
      { type: "response.output_item.added", output_index: 1, item: { id: "rs2", type: "reasoning", summary: [] } },
      sum("rs2", 1, 0, "Done."),
      ...msg("m1", 2, "Answer."),
      { type: "response.completed", response: { status: "completed" } },
    ]);
    const reasoning = deltas.filter((d) => d.type === "reasoning-delta").map((d) => (d as { text: string }).text);
    expect(reasoning.join("")).toBe("**Plan** first.\n\nThen check.\n\nDone.");
    // reasoning never leaks into the text
    expect(
      deltas
        .filter((d) => d.type === "text-delta")
        .map((d) => (d as { text: string }).text)
        .join(""),
    ).toBe("Answer.");
  });

  it("counts web searches, not the page actions that follow them", () => {
    const ws = (id: string, type?: string) => ({ id, type: "web_search_call", status: "completed", ...(type ? { action: { type } } : {}) });
    const { res } = responses([
      {
        type: "response.completed",
        response: {
          status: "completed",
          output: [ws("w1", "search"), ws("w2", "open_page"), ws("w3", "find_in_page"), ws("w4"), ws("w5", "search")],
          usage: { input_tokens: 1, output_tokens: 1, output_tokens_details: { reasoning_tokens: 0 } },
        },
      },
    ]);
    expect(res.usage).toEqual({ inputTokens: 1, outputTokens: 1, reasoningTokens: 0, webSearches: 3 });
  });

  it("reads both shapes of the error event", () => {
    expect(() => responses([{ type: "error", code: "rate_limit_exceeded", message: "Slow down", param: null }])).toThrow(
      expect.objectContaining({ code: "provider_error", type: "rate_limit_exceeded", requestId: "req_unit" }),
    );
    expect(() => responses([{ type: "error", error: { type: "server_error", code: null, message: "Boom" } }])).toThrow(/Boom/);
  });

  it("a refusal is the text, finished as content-filter", () => {
    const { res } = responses([
      {
        type: "response.completed",
        response: { status: "completed", output: [{ id: "m", type: "message", role: "assistant", content: [{ type: "refusal", refusal: "No." }] }] },
      },
    ]);
    expect(res).toMatchObject({ text: "No.", finishReason: "content-filter" });
  });

  it("ignores events after the terminal one and requires a terminal event", () => {
    const d = createResponsesStreamDecoder(ctx);
    d.push(JSON.stringify({ type: "response.created", response: { status: "in_progress" } }));
    expect(() => d.finish()).toThrow(expect.objectContaining({ code: "stream_error", requestId: "req_unit" }));
  });
});

describe("responses body decoder", () => {
  it("a failed response is a ProviderError", () => {
    expect(() => decodeResponsesBody(ctx, { status: "failed", output: [], error: { code: "server_error", message: "broke" } })).toThrow(
      expect.objectContaining({ code: "provider_error", type: "server_error" }),
    );
    expect(() => decodeResponsesBody(ctx, { status: "completed" })).toThrow(expect.objectContaining({ type: "invalid_response" }));
  });
});
