// The decoder state machine on its own: finish reasons, usage, signatures, call ids,
// Vertex partialArgs, errors inside the stream.
import { describe, expect, it } from "vitest";
import { createStreamDecoder, decodeBody } from "../../adapters/gemini/decode.js";
import { createArgsAssembler, parseJsonPath } from "../../adapters/gemini/partial-args.js";
import type { Part } from "../../adapters/gemini/wire.js";
import type { Delta } from "../../src/conversation/provider.js";
import { generate, providerFor, withMock } from "./helpers.js";

const chunk = (parts: Part[], extra: Record<string, unknown> = {}, top: Record<string, unknown> = {}) => ({
  candidates: [{ content: { parts, role: "model" }, index: 0, ...extra }],
  ...top,
});

function stream(...chunks: unknown[]) {
  const deltas: Delta[] = [];
  const d = createStreamDecoder({}, (x) => deltas.push(x));
  for (const c of chunks) d.push(JSON.stringify(c));
  return { ...d.finishDecoded(), deltas };
}

describe("decoder", () => {
  it.each([
    ["STOP", "stop"],
    ["MAX_TOKENS", "length"],
    ["SAFETY", "content-filter"],
    ["RECITATION", "content-filter"],
    ["BLOCKLIST", "content-filter"],
    ["PROHIBITED_CONTENT", "content-filter"],
    ["SPII", "content-filter"],
    ["OTHER", "other"],
    ["LANGUAGE", "other"],
    ["MALFORMED_FUNCTION_CALL", "other"],
  ])("finishReason %s → %s", (raw, mapped) => {
    const r = stream(chunk([{ text: "partial" }], { finishReason: raw }));
    expect(r.response.finishReason).toBe(mapped);
    expect(r.finishReason).toBe(raw);
    expect(r.response.text).toBe("partial");
  });

  it("STOP with calls is tool-calls; MAX_TOKENS with calls stays length", () => {
    const call: Part = { functionCall: { name: "f", args: { a: 1 } } };
    expect(stream(chunk([call], { finishReason: "STOP" })).response.finishReason).toBe("tool-calls");
    expect(stream(chunk([call], { finishReason: "MAX_TOKENS" })).response.finishReason).toBe("length");
  });

  it("a blocked prompt (promptFeedback.blockReason, no candidates) is content-filter", () => {
    const r = stream({ promptFeedback: { blockReason: "SAFETY" }, usageMetadata: { promptTokenCount: 5, totalTokenCount: 5 } });
    expect(r.response).toEqual({ text: "", toolCalls: [], finishReason: "content-filter", usage: { inputTokens: 5, outputTokens: 0 } });
  });

  it("usage: the last usageMetadata; thoughts are output, tool-use prompt and cached tokens reported", () => {
    const r = stream(
      chunk([{ text: "a" }], {}, { usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1 } }),
      chunk(
        [{ text: "b" }],
        { finishReason: "STOP" },
        { usageMetadata: { promptTokenCount: 100, candidatesTokenCount: 7, thoughtsTokenCount: 30, toolUsePromptTokenCount: 4, cachedContentTokenCount: 60 } },
      ),
    );
    // promptTokenCount already holds the cached tokens: inputTokens is not promptTokenCount + cached
    expect(r.response.usage).toEqual({ inputTokens: 104, outputTokens: 37, cacheReadTokens: 60, reasoningTokens: 30 });
  });

  it("streamed text merges into one part per run (thought runs apart), split by a call, and the text is the non-thought runs", () => {
    const call: Part = { functionCall: { name: "f", args: { a: 1 } } };
    const r = stream(
      chunk([{ text: "plan ", thought: true }]),
      chunk([{ text: "more", thought: true }]),
      chunk([{ text: "He" }]),
      chunk([{ text: "llo" }, { text: "" }]),
      chunk([call]),
      chunk([{ text: " wor" }]),
      chunk([{ text: "ld", thoughtSignature: "sig" }]),
      chunk([{ text: "!" }], { finishReason: "STOP" }),
    );
    expect(r.response.text).toBe("Hello world!");
    expect((r.response.providerData?.value as { parts: Part[] }).parts).toEqual([
      { text: "plan more", thought: true },
      { text: "Hello" },
      call,
      { text: " wor" },
      { text: "ld", thoughtSignature: "sig" },
      { text: "!" },
    ]);
    expect(
      r.deltas
        .filter((d) => d.type === "text-delta")
        .map((d) => (d as { text: string }).text)
        .join(""),
    ).toBe("Hello world!");
  });

  it("a stream without a finishReason is a StreamError; a JSON body without one is 'other'", () => {
    expect(() => stream(chunk([{ text: "cut" }]))).toThrow(expect.objectContaining({ code: "stream_error" }));
    expect(decodeBody({}, chunk([{ text: "no reason" }])).response.finishReason).toBe("other");
  });

  it("an error object in the stream is a ProviderError with Google's status", () => {
    const d = createStreamDecoder();
    d.push(JSON.stringify(chunk([{ text: "a" }])));
    expect(() => d.push(JSON.stringify({ error: { code: 500, message: "An internal error has occurred.", status: "INTERNAL" } }))).toThrow(
      expect.objectContaining({ code: "provider_error", status: 500, type: "INTERNAL", message: "gemini 500 INTERNAL: An internal error has occurred." }),
    );
    expect(() => createStreamDecoder().push('"nonsense"')).toThrow(expect.objectContaining({ code: "stream_error" }));
  });

  it("keeps a thoughtSignature on the part it came on: an empty-text part, a part of its own, a text part", () => {
    const r = stream(
      chunk([{ text: "Hello" }]),
      chunk([{ text: " world" }]),
      chunk([{ text: "", thoughtSignature: "QQ==" }]),
      chunk([{ text: " more" }]),
      chunk([{ thoughtSignature: "Qg==" }]),
      chunk([{ text: "signed", thoughtSignature: "Qw==" }]),
      chunk([{ text: " after" }, { text: "" }], { finishReason: "STOP" }),
    );
    expect(r.response.text).toBe("Hello world moresigned after");
    expect(r.response.providerData).toEqual({
      provider: "gemini",
      value: {
        parts: [
          { text: "Hello world" },
          { text: "", thoughtSignature: "QQ==" },
          { text: " more" },
          { thoughtSignature: "Qg==" },
          { text: "signed", thoughtSignature: "Qw==" },
          { text: " after" },
        ],
        callIds: [],
      },
    });
  });

  it("thought summaries are kept apart from the text and streamed as reasoning-delta, never as text", () => {
    const r = stream(
      chunk([{ text: "thinking ", thought: true }]),
      chunk([{ text: "more", thought: true }]),
      chunk([{ text: "Answer" }], { finishReason: "STOP" }),
    );
    expect(r.response.text).toBe("Answer");
    expect(r.deltas).toEqual([
      { type: "reasoning-delta", text: "thinking " },
      { type: "reasoning-delta", text: "more" },
      { type: "text-delta", text: "Answer" },
    ]);
    expect((r.response.providerData!.value as { parts: Part[] }).parts).toEqual([{ text: "thinking more", thought: true }, { text: "Answer" }]);
  });

  it("JSON bodies keep their parts exactly, empty ones included", () => {
    const parts: Part[] = [{ text: "a" }, { text: "b" }, { text: "" }, { text: "", thoughtSignature: "QQ==" }];
    const d = decodeBody({}, chunk(parts, { finishReason: "STOP" }));
    expect((d.response.providerData!.value as { parts: Part[] }).parts).toEqual(parts);
  });

  it("uses the API's call ids when present, otherwise stable generated ones", () => {
    const withIds = stream(chunk([{ functionCall: { id: "x1", name: "f", args: {} } }], { finishReason: "STOP" }));
    expect(withIds.response.toolCalls).toEqual([{ id: "x1", name: "f", arguments: "{}" }]);
    const body = (responseId: string) => ({
      ...chunk([{ functionCall: { name: "f", args: { q: 1 } } }, { functionCall: { name: "f", args: { q: 1 } } }], { finishReason: "STOP" }),
      responseId,
    });
    const a = stream(body("r1")).response.toolCalls.map((c) => c.id);
    const again = stream(body("r1")).response.toolCalls.map((c) => c.id);
    const other = stream(body("r2")).response.toolCalls.map((c) => c.id);
    expect(a).toEqual(again);
    expect(new Set(a).size).toBe(2);
    expect(other.some((id) => a.includes(id))).toBe(false);
    expect((stream(body("r1")).response.providerData!.value as { callIds: string[] }).callIds).toEqual(a);
  });

  it("without a responseId, the same call in a later step gets an id the history does not hold yet", () => {
    const same = () => chunk([{ functionCall: { name: "f", args: { q: 1 } } }, { functionCall: { name: "f", args: { q: 1 } } }], { finishReason: "STOP" });
    const first = stream(same()).response.toolCalls.map((c) => c.id);
    expect(new Set(first).size).toBe(2);
    // the next step's response is the same bytes: its derived ids must not repeat step 1's
    const deltas: Delta[] = [];
    const d = createStreamDecoder({ takenIds: () => new Set(first) }, (x) => deltas.push(x));
    d.push(JSON.stringify(same()));
    const second = d.finish().toolCalls.map((c) => c.id);
    expect(new Set([...first, ...second]).size).toBe(4);
    expect(deltas.map((x) => (x.type === "tool-call-delta" ? x.callId : ""))).toEqual(second);
    expect(decodeBody({ takenIds: () => new Set(first) }, same()).response.toolCalls.map((c) => c.id)).toEqual(second);
    // the history is asked only when an id has to be derived
    let asked = 0;
    decodeBody({ takenIds: () => (asked++, new Set()) }, chunk([{ functionCall: { id: "x", name: "f", args: {} } }], { finishReason: "STOP" }));
    expect(asked).toBe(0);
  });

  it("a candidate other than the first is ignored", () => {
    const r = stream({
      candidates: [
        { content: { parts: [{ text: "second" }] }, index: 1, finishReason: "STOP" },
        { content: { parts: [{ text: "first" }] }, index: 0, finishReason: "STOP" },
      ],
    });
    expect(r.response.text).toBe("first");
  });
});

describe("Vertex partialArgs", () => {
  it("assembles fragments of several types and paths into one args object, reported once", () => {
    const r = stream(
      chunk([{ functionCall: { name: "book", willContinue: true }, thoughtSignature: "U2ln" }]),
      chunk([{ functionCall: { partialArgs: [{ jsonPath: "$.city", stringValue: "San ", willContinue: true }], willContinue: true } }]),
      chunk([{ functionCall: { partialArgs: [{ jsonPath: "$.city", stringValue: "Francisco", willContinue: true }], willContinue: true } }]),
      chunk([{ functionCall: { partialArgs: [{ jsonPath: "$.city", stringValue: "" }], willContinue: true } }]),
      chunk([
        {
          functionCall: {
            partialArgs: [
              { jsonPath: "$.nights", numberValue: 3 },
              { jsonPath: "$.options.breakfast", boolValue: true },
              { jsonPath: "$.guests[0].name", stringValue: "Ada" },
              { jsonPath: "$['odd key']", nullValue: "NULL_VALUE" },
            ],
            willContinue: true,
          },
        },
      ]),
      chunk([{ functionCall: {} }], { finishReason: "STOP" }),
    );
    const args = { city: "San Francisco", nights: 3, options: { breakfast: true }, guests: [{ name: "Ada" }], "odd key": null };
    expect(r.response.toolCalls).toEqual([{ id: expect.stringMatching(/^call_0_/), name: "book", arguments: JSON.stringify(args) }]);
    expect(r.deltas).toEqual([{ type: "tool-call-delta", callId: r.response.toolCalls[0]!.id, name: "book", argsDelta: JSON.stringify(args) }]);
    expect((r.response.providerData!.value as { parts: Part[] }).parts).toEqual([{ functionCall: { name: "book", args }, thoughtSignature: "U2ln" }]);
  });

  it("a new call, text or the end of the stream closes an open call", () => {
    const r = stream(
      chunk([{ functionCall: { name: "a", willContinue: true } }]),
      chunk([{ functionCall: { partialArgs: [{ jsonPath: "$.x", numberValue: 1 }], willContinue: true } }]),
      chunk([{ functionCall: { name: "b", willContinue: true } }]),
      chunk([{ functionCall: { partialArgs: [{ jsonPath: "$.y", numberValue: 2 }], willContinue: true } }], { finishReason: "STOP" }),
    );
    expect(r.response.toolCalls.map((c) => [c.name, c.arguments])).toEqual([
      ["a", '{"x":1}'],
      ["b", '{"y":2}'],
    ]);
  });

  it("parses JSON paths", () => {
    expect(parseJsonPath("$.a.b")).toEqual(["a", "b"]);
    expect(parseJsonPath("$.list[2].name")).toEqual(["list", 2, "name"]);
    expect(parseJsonPath(`$["we.ird"]['it\\'s']`)).toEqual(["we.ird", "it's"]);
    expect(parseJsonPath("a.b")).toBeUndefined();
    expect(parseJsonPath("$")).toBeUndefined();
    expect(parseJsonPath("$.a[")).toBeUndefined();
    const a = createArgsAssembler();
    a.add([
      { jsonPath: "not a path", stringValue: "x" },
      { jsonPath: "$.ok", stringValue: "y" },
    ]);
    expect(a.value()).toEqual({ ok: "y" });
  });
});

describe("errors found at the end of a stream carry the response's request id", () => {
  it("a stream cut before its finishReason (over HTTP): StreamError with the x-request-id", async () => {
    await withMock({}, async (mock) => {
      mock.enqueue({ sse: [`data: ${JSON.stringify(chunk([{ text: "half" }]))}\r\n\r\n`], headers: { "x-request-id": "req-cut-1" } });
      const err = await generate(providerFor(mock), true).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: "stream_error", requestId: "req-cut-1" });
    });
  });

  it("an event that is not JSON names the request too", () => {
    let id: string | undefined;
    const d = createStreamDecoder({ requestId: () => id });
    id = "req-2";
    expect(() => d.push("{not json")).toThrow(expect.objectContaining({ code: "stream_error", requestId: "req-2" }));
  });
});
