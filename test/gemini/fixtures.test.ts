// Every recorded Gemini response in test/fixtures/gemini, replayed through the real
// adapter over HTTP (the mock serves the recorded bytes), with the decoded result checked
// field by field: text, tool calls and arguments, finish reason, usage, providerData.

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { retryInfoDelay } from "../../adapters/gemini/errors.js";

const retryDelayMs = (body: string): number | undefined => {
  const json = JSON.parse(body) as { error?: { details?: unknown } };
  return retryInfoDelay(json.error?.details);
};

import type { Part } from "../../adapters/gemini/wire.js";
import type { ModelResponse, ProviderError } from "../../src/index.js";
import { MOCK_API_KEY } from "../mock/gemini.js";
import { cut, decodeSSE, fromDeltas, generate, providerFor, withMock } from "./helpers.js";
import { chunksToSSE, fixtureFiles, fixtureJSON, fixtureText } from "./recordings.js";

type Chunk = { candidates?: { content?: { parts?: Part[] }; groundingMetadata?: unknown }[] };

/** The `data:` payloads of a raw .sse fixture. */
function events(sse: string): Chunk[] {
  return sse
    .split("\r\n\r\n")
    .filter((e) => e.startsWith("data: "))
    .map((e) => JSON.parse(e.slice("data: ".length)) as Chunk);
}
const partsOf = (chunks: Chunk[]): Part[] => chunks.flatMap((c) => c.candidates?.[0]?.content?.parts ?? []);
const textOf = (parts: Part[]) =>
  parts
    .filter((p) => typeof p.text === "string" && !p.thought)
    .map((p) => p.text)
    .join("");
const bodyParts = (file: string): Part[] => (fixtureJSON(file) as { candidates: { content: { parts: Part[] } }[] }).candidates[0]!.content.parts;
const ID = /^call_\d+_[0-9a-z]{7}$/;

interface Expected {
  text: string;
  calls: { name: string; arguments: string }[];
  finishReason: ModelResponse["finishReason"];
  usage: ModelResponse["usage"];
  parts: Part[];
  groundingMetadata?: unknown;
}

/** Checks a response against what the fixture says, and that ids agree everywhere. */
function check(response: ModelResponse, want: Expected): void {
  expect(response.text).toBe(want.text);
  expect(response.toolCalls.map(({ name, arguments: a }) => ({ name, arguments: a }))).toEqual(want.calls);
  expect(response.finishReason).toBe(want.finishReason);
  expect(response.usage).toEqual(want.usage);
  const value: Record<string, unknown> = { parts: want.parts, callIds: response.toolCalls.map((c) => c.id) };
  if (want.groundingMetadata !== undefined) value.groundingMetadata = want.groundingMetadata;
  expect(response.providerData).toEqual({ provider: "gemini", value });
  for (const c of response.toolCalls) expect(c.id).toMatch(ID);
  expect(new Set(response.toolCalls.map((c) => c.id)).size).toBe(response.toolCalls.length);
  expect(JSON.parse(JSON.stringify(response))).toEqual(response); // plain JSON
}

// ---- streams ---------------------------------------------------------------------------

const streams: { file: string; sse: () => string; want: () => Expected }[] = [
  {
    file: "vercel-ai/google-text.chunks.txt",
    sse: () => chunksToSSE("vercel-ai/google-text.chunks.txt"),
    want: () => {
      const parts = partsOf(events(chunksToSSE("vercel-ai/google-text.chunks.txt")));
      // two text chunks joined; the signature arrives on a final empty-text part and stays on it
      return {
        text: 'There are **3** "r"s in strawberry.\n\nst**r**awbe**rr**y',
        calls: [],
        finishReason: "stop",
        usage: { inputTokens: 9, outputTokens: 23 + 185, reasoningTokens: 185 },
        parts: [{ text: parts[0]!.text! + parts[1]!.text! }, { text: "", thoughtSignature: parts[2]!.thoughtSignature! }],
      };
    },
  },
  {
    file: "vercel-ai/google-tool-call.chunks.txt",
    sse: () => chunksToSSE("vercel-ai/google-tool-call.chunks.txt"),
    want: () => ({
      text: "",
      calls: [{ name: "weather", arguments: '{"location":"San Francisco"}' }],
      finishReason: "tool-calls",
      usage: { inputTokens: 29, outputTokens: 15 + 45, reasoningTokens: 45 },
      parts: [partsOf(events(chunksToSSE("vercel-ai/google-tool-call.chunks.txt")))[0]!], // the call with its signature, verbatim
    }),
  },
  {
    // Vertex AI: a thought summary, a call with no args, then three calls whose args are streamed as partialArgs
    file: "vercel-ai/google-stream-no-args-tool-call.chunks.txt",
    sse: () => chunksToSSE("vercel-ai/google-stream-no-args-tool-call.chunks.txt"),
    want: () => {
      const parts = partsOf(events(chunksToSSE("vercel-ai/google-stream-no-args-tool-call.chunks.txt")));
      return {
        text: "",
        calls: [
          { name: "read_theme", arguments: "{}" },
          { name: "read_screen", arguments: '{"id":"A"}' },
          { name: "read_screen", arguments: '{"id":"B"}' },
          { name: "read_screen", arguments: '{"id":"C"}' },
        ],
        finishReason: "tool-calls",
        usage: { inputTokens: 249, outputTokens: 58 + 183, reasoningTokens: 183 },
        parts: [
          parts[0]!, // the thought summary
          parts[1]!, // {functionCall: {name: "read_theme"}, thoughtSignature}
          { functionCall: { name: "read_screen", args: { id: "A" } } },
          { functionCall: { name: "read_screen", args: { id: "B" } } },
          { functionCall: { name: "read_screen", args: { id: "C" } } },
        ],
      };
    },
  },
  {
    file: "vercel-ai/google-stream-tool-call-arguments.chunks.txt",
    sse: () => chunksToSSE("vercel-ai/google-stream-tool-call-arguments.chunks.txt"),
    want: () => {
      const first = partsOf(events(chunksToSSE("vercel-ai/google-stream-tool-call-arguments.chunks.txt")))[0]!;
      return {
        text: "",
        calls: [
          { name: "getWeather", arguments: '{"location":"Boston"}' },
          { name: "getWeather", arguments: '{"location":"San Francisco"}' },
        ],
        finishReason: "tool-calls",
        usage: { inputTokens: 26, outputTokens: 23 + 132, reasoningTokens: 132 },
        // the signature of the opening part stays on the assembled call
        parts: [
          { functionCall: { name: "getWeather", args: { location: "Boston" } }, thoughtSignature: first.thoughtSignature! },
          { functionCall: { name: "getWeather", args: { location: "San Francisco" } } },
        ],
      };
    },
  },
  {
    file: "pydantic-ai/test_google_model_stream.1.sse",
    sse: () => fixtureText("pydantic-ai/test_google_model_stream.1.sse"),
    want: () => ({
      text: "The capital of France is Paris.\n",
      calls: [],
      finishReason: "stop",
      usage: { inputTokens: 13, outputTokens: 8 }, // the last chunk's counts win
      parts: [{ text: "The capital of France is Paris.\n" }],
    }),
  },
  {
    file: "pydantic-ai/test_google_model_thinking_part_iter.1.sse",
    sse: () => fixtureText("pydantic-ai/test_google_model_thinking_part_iter.1.sse"),
    want: () => {
      const parts = partsOf(events(fixtureText("pydantic-ai/test_google_model_thinking_part_iter.1.sse")));
      expect(parts).toHaveLength(23);
      const thoughts = parts.slice(0, 4);
      const answer = parts.slice(4);
      return {
        text: textOf(answer),
        calls: [],
        finishReason: "stop",
        usage: { inputTokens: 34, outputTokens: 469 + 787, reasoningTokens: 787 },
        parts: [
          { text: thoughts.map((p) => p.text).join(""), thought: true }, // summaries joined, not in the text
          answer[0]!, // the signed text part, exactly as it came
          { text: textOf(answer.slice(1)) },
        ],
      };
    },
  },
  {
    file: "pydantic-ai/test_google_model_web_search_tool_stream.1.sse",
    sse: () => fixtureText("pydantic-ai/test_google_model_web_search_tool_stream.1.sse"),
    want: () => {
      const chunks = events(fixtureText("pydantic-ai/test_google_model_web_search_tool_stream.1.sse"));
      const text = textOf(partsOf(chunks));
      expect(text).toContain("Weather in San Francisco");
      const grounding = chunks[chunks.length - 1]!.candidates![0]!.groundingMetadata as { webSearchQueries: string[] };
      expect(grounding.webSearchQueries).toEqual(["weather in San Francisco today"]);
      return {
        text,
        calls: [],
        finishReason: "stop",
        usage: { inputTokens: 17 + 102, outputTokens: 241 + 412, reasoningTokens: 412, webSearches: 1 },
        parts: [{ text }],
        groundingMetadata: grounding,
      };
    },
  },
  {
    file: "pydantic-ai/test_google_streaming_tool_call_thought_signature.1.sse",
    sse: () => fixtureText("pydantic-ai/test_google_streaming_tool_call_thought_signature.1.sse"),
    want: () => ({
      text: "",
      calls: [{ name: "get_country", arguments: "{}" }],
      finishReason: "tool-calls",
      usage: { inputTokens: 29, outputTokens: 10 + 202, reasoningTokens: 202 },
      parts: [partsOf(events(fixtureText("pydantic-ai/test_google_streaming_tool_call_thought_signature.1.sse")))[0]!],
    }),
  },
  {
    file: "pydantic-ai/test_google_streaming_tool_call_thought_signature.2.sse",
    sse: () => fixtureText("pydantic-ai/test_google_streaming_tool_call_thought_signature.2.sse"),
    want: () => ({
      text: "The capital of Mexico is Mexico City.",
      calls: [],
      finishReason: "stop",
      usage: { inputTokens: 257, outputTokens: 8 },
      parts: [{ text: "The capital of Mexico is Mexico City." }],
    }),
  },
];

describe("recorded streams, replayed over HTTP", () => {
  it("covers every stream fixture", () => {
    const all = [...fixtureFiles("vercel-ai"), ...fixtureFiles("pydantic-ai")].filter((f) => f.endsWith(".sse") || f.endsWith(".chunks.txt"));
    expect(streams.map((s) => s.file).sort()).toEqual(all.sort());
  });

  it.each(streams)("$file", async ({ sse, want }) => {
    await withMock({}, async (mock) => {
      mock.enqueue({ sse: [sse()] });
      const { response, deltas } = await generate(providerFor(mock), true);
      check(response, want());
      // the deltas tell the same story as the response
      const told = fromDeltas(deltas);
      expect(told.text).toBe(response.text);
      expect(told.calls).toEqual(response.toolCalls);
      // thought summaries (recorded with includeThoughts) are reasoning-delta, in order
      const thoughts = ((response.providerData?.value as { parts?: Part[] } | undefined)?.parts ?? [])
        .filter((p) => p.thought === true)
        .map((p) => p.text ?? "");
      expect(
        deltas
          .filter((d) => d.type === "reasoning-delta")
          .map((d) => d.text)
          .join(""),
      ).toBe(thoughts.join(""));
      expect(mock.requests[0]!.url).toBe("/v1beta/models/gemini-3-pro-preview:streamGenerateContent?alt=sse");
    });
  });

  it.each(streams)("$file decodes the same over HTTP when cut at random byte offsets", async ({ sse, want }) => {
    const bytes = new TextEncoder().encode(sse());
    const offsets = fc
      .sample(fc.uniqueArray(fc.integer({ min: 1, max: bytes.length - 1 }), { minLength: 1, maxLength: 40 }), { numRuns: 1, seed: bytes.length })[0]!
      .sort((a, b) => a - b);
    await withMock({}, async (mock) => {
      mock.enqueue({ sse: cut(bytes, offsets) });
      const { response } = await generate(providerFor(mock), true);
      check(response, want());
    });
  });

  it.each(streams)("$file: the decoder gives the same result at any chunk boundaries", ({ sse }) => {
    const bytes = new TextEncoder().encode(sse());
    const whole = decodeSSE([bytes]);
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 1, max: bytes.length - 1 }), { maxLength: 60 }), (offsets) => {
        const split = decodeSSE(
          cut(
            bytes,
            offsets.sort((a, b) => a - b),
          ),
        );
        expect(split.decoded).toEqual(whole.decoded);
        expect(split.deltas).toEqual(whole.deltas);
      }),
      { numRuns: 60 },
    );
    // and byte by byte
    const bytewise = decodeSSE(Array.from(bytes, (_, i) => bytes.subarray(i, i + 1)));
    expect(bytewise.decoded).toEqual(whole.decoded);
  });
});

// ---- whole bodies ----------------------------------------------------------------------

const bodies: { file: string; want: () => Expected }[] = [
  {
    file: "vercel-ai/google-text.json",
    want: () => ({
      text: "There are **3** r's in strawberry.\n\nHere is the breakdown: st**r**awbe**rr**y.",
      calls: [],
      finishReason: "stop",
      usage: { inputTokens: 9, outputTokens: 28 + 244, reasoningTokens: 244 },
      parts: bodyParts("vercel-ai/google-text.json"),
    }),
  },
  {
    file: "vercel-ai/google-tool-call.json",
    want: () => ({
      text: "",
      calls: [{ name: "weather", arguments: '{"location":"San Francisco"}' }],
      finishReason: "tool-calls",
      usage: { inputTokens: 29, outputTokens: 15 + 893, reasoningTokens: 893 },
      parts: bodyParts("vercel-ai/google-tool-call.json"),
    }),
  },
  {
    file: "vercel-ai/google-response-schema-7689.json",
    want: () => ({
      text: '{"location":"Paris"}',
      calls: [],
      finishReason: "stop",
      usage: { inputTokens: 6, outputTokens: 5 + 40, reasoningTokens: 40 },
      parts: [{ text: '{"location":"Paris"}' }],
    }),
  },
  {
    // three parallel calls; only the first carries a thoughtSignature
    file: "pydantic-ai/test_google_instructions_only_with_tool_calls.1.response.json",
    want: () => {
      const parts = bodyParts("pydantic-ai/test_google_instructions_only_with_tool_calls.1.response.json");
      expect(parts.map((p) => typeof p.thoughtSignature)).toEqual(["string", "undefined", "undefined"]);
      return {
        text: "",
        calls: [1, 2, 3].map(() => ({ name: "generate_topic", arguments: "{}" })),
        finishReason: "tool-calls",
        usage: { inputTokens: 83, outputTokens: 30 + 190, reasoningTokens: 190 },
        parts,
      };
    },
  },
  ...[
    [2, 348, 10, 40],
    [3, 415, 10, 105],
    [4, 546, 10, 106],
  ].map(([n, input, candidates, thoughts]) => ({
    file: `pydantic-ai/test_google_instructions_only_with_tool_calls.${n}.response.json`,
    want: (): Expected => ({
      text: "",
      calls: [{ name: "generate_topic", arguments: "{}" }],
      finishReason: "tool-calls",
      usage: { inputTokens: input!, outputTokens: candidates! + thoughts!, reasoningTokens: thoughts! },
      parts: bodyParts(`pydantic-ai/test_google_instructions_only_with_tool_calls.${n}.response.json`),
    }),
  })),
  {
    file: "pydantic-ai/test_google_instructions_only_with_tool_calls.5.response.json",
    want: () => ({
      text: "",
      calls: [
        {
          name: "final_result",
          arguments: JSON.stringify({
            response: [
              "What kind of car does a sheep drive? A Lamborghini!",
              "Why don't you see penguins in Great Britain? Because they're afraid of Wales!",
              "What happened when the wheel was invented? It caused a revolution!",
            ],
          }),
        },
      ],
      finishReason: "tool-calls",
      usage: { inputTokens: 679, outputTokens: 65 + 235, reasoningTokens: 235 },
      parts: bodyParts("pydantic-ai/test_google_instructions_only_with_tool_calls.5.response.json"),
    }),
  },
  ...[
    ["test_google_model_web_search_tool.1.response.json", 17 + 119, 201, 213],
    ["test_google_model_web_search_tool.2.response.json", 209 + 286, 206, 131],
    ["test_google_model_web_search_tool_stream.2.response.json", 249 + 319, 240, 301],
  ].map(([name, input, candidates, thoughts]) => ({
    file: `pydantic-ai/${name}`,
    want: (): Expected => {
      const body = fixtureJSON(`pydantic-ai/${name}`) as { candidates: { content: { parts: Part[] }; groundingMetadata: { webSearchQueries: string[] } }[] };
      const c = body.candidates[0]!;
      expect(c.groundingMetadata.webSearchQueries).toHaveLength(1);
      return {
        text: c.content.parts[0]!.text!,
        calls: [],
        finishReason: "stop",
        usage: {
          inputTokens: input as number,
          outputTokens: (candidates as number) + (thoughts as number),
          reasoningTokens: thoughts as number,
          webSearches: 1,
        },
        parts: c.content.parts,
        groundingMetadata: c.groundingMetadata,
      };
    },
  })),
  {
    file: "pydantic-ai/test_google_native_output.1.response.json",
    want: () => ({
      text: '{\n  "city": "Mexico City",\n  "country": "Mexico"\n}',
      calls: [],
      finishReason: "stop",
      usage: { inputTokens: 8, outputTokens: 20 },
      parts: bodyParts("pydantic-ai/test_google_native_output.1.response.json"),
    }),
  },
];

const errors: { file: string; status: number; type: string; message: string }[] = [
  {
    file: "vercel-ai/google-429-retry-info.json",
    status: 429,
    type: "RESOURCE_EXHAUSTED",
    message: "You exceeded your current quota, please check your plan.",
  },
  {
    file: "vercel-ai/google-thinking-level-minimal-unsupported.json",
    status: 400,
    type: "INVALID_ARGUMENT",
    message: "Thinking level MINIMAL is not supported for this model. Please retry with other thinking level.",
  },
  {
    file: "vercel-ai/issue-8943-gemini-2.5-flash-error.json",
    status: 400,
    type: "INVALID_ARGUMENT",
    message: "Penalty is not enabled for models/gemini-2.5-flash",
  },
];

describe("recorded bodies, replayed over HTTP", () => {
  it("covers every JSON fixture", () => {
    const all = [...fixtureFiles("vercel-ai"), ...fixtureFiles("pydantic-ai")].filter((f) => f.endsWith(".json"));
    expect([...bodies.map((b) => b.file), ...errors.map((e) => e.file)].sort()).toEqual(all.sort());
  });

  it.each(bodies)("$file", async ({ file, want }) => {
    await withMock({}, async (mock) => {
      mock.enqueue({ status: 200, body: fixtureText(file) });
      const { response } = await generate(providerFor(mock), false);
      check(response, want());
      expect(mock.requests[0]!.url).toBe("/v1beta/models/gemini-3-pro-preview:generateContent");
    });
  });

  it.each(errors)("$file → ProviderError $status $type", async ({ file, status, type, message }) => {
    await withMock({}, async (mock) => {
      mock.enqueue({ status, body: fixtureText(file) });
      const err = (await generate(providerFor(mock), false).catch((e: unknown) => e)) as ProviderError;
      expect(err).toMatchObject({ code: "provider_error", provider: "gemini", status, type, retryable: status === 429 });
      expect(err.message).toBe(`gemini ${status} ${type}: ${message}`);
      expect(mock.requests).toHaveLength(1); // maxRetries 0
    });
  });

  it("reads the RetryInfo delay of the recorded 429 (34.4 s)", () => {
    expect(retryDelayMs(fixtureText("vercel-ai/google-429-retry-info.json"))).toBe(34_400);
  });

  it("a 429 whose RetryInfo asks for more than a minute is not waited for", async () => {
    const body = fixtureJSON("vercel-ai/google-429-retry-info.json") as { error: { details: { retryDelay?: string }[] } };
    body.error.details[1]!.retryDelay = "120s";
    await withMock({}, async (mock) => {
      mock.enqueue({ status: 429, body });
      const err = await generate(providerFor(mock), false, { maxRetries: 3 }).catch((e: unknown) => e);
      expect(err).toMatchObject({ status: 429, type: "RESOURCE_EXHAUSTED" });
      expect(mock.requests).toHaveLength(1);
    });
  });

  it("uses the key header, never the URL", async () => {
    await withMock({}, async (mock) => {
      await generate(providerFor(mock), false);
      expect(mock.requests[0]!.headers["x-goog-api-key"]).toBe(MOCK_API_KEY);
      expect(mock.requests[0]!.url).not.toContain(MOCK_API_KEY);
    });
  });
});
