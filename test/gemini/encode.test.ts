// Request encoding: exact bodies for each mapping rule, every body checked against the
// GenerateContentRequest schema of Google's OpenAPI export, and the bodies compared with
// what pydantic-ai sent in the recorded cassettes where they cover the same case.
import { describe, expect, it } from "vitest";
import { createStreamDecoder, decodeBody } from "../../adapters/gemini/decode.js";
import { encodeRequest, SKIP_SIGNATURE, structuredOutputWithTools } from "../../adapters/gemini/encode.js";
import type { GenerateContentRequest, Part } from "../../adapters/gemini/wire.js";
import type { Message, ModelRequest, ModelResponse, ToolSpec } from "../../src/index.js";
import { cassette, fixtureJSON, fixtureText } from "./recordings.js";
import { validateRequestBody } from "./spec.js";

const weather: ToolSpec = {
  name: "get_weather",
  description: "Current temperature for a city.",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"], additionalProperties: false },
};

function encode(req: Partial<ModelRequest>, model = "gemini-3-pro-preview", generationConfig = {}): GenerateContentRequest {
  const body = encodeRequest({ messages: [], tools: [], webSearch: false, ...req }, { model, generationConfig });
  expect(validateRequestBody(body)).toEqual([]);
  return body;
}

/** Decodes a recorded response the way the adapter does and turns it into the assistant message the loop would keep. */
function assistantFrom(response: ModelResponse): Message {
  const m: Message = { role: "assistant", content: response.text };
  if (response.toolCalls.length) m.toolCalls = response.toolCalls;
  if (response.providerData) m.providerData = response.providerData;
  return m;
}
function decodeSSEFile(file: string): ModelResponse {
  const d = createStreamDecoder();
  for (const e of fixtureText(file).split("\r\n\r\n").filter(Boolean)) d.push(e.slice("data: ".length));
  return d.finish();
}
function decodeJSONFile(file: string): ModelResponse {
  return decodeBody({}, fixtureJSON(file)).response;
}
/** pydantic's python SDK re-encodes signature bytes as base64url; the bytes are the same. */
const std64 = (s: string) => s.replace(/-/g, "+").replace(/_/g, "/");

describe("request encoding", () => {
  it("the schema check catches what the API's parser rejects", () => {
    expect(validateRequestBody({ contents: [{ role: "user", parts: [{ text: "hi", bogus: 1 }] }] })).not.toEqual([]);
    expect(validateRequestBody({ contents: [{ role: "user", parts: [{ text: 3 }] }] })).not.toEqual([]);
    expect(validateRequestBody({ contents: [{ role: "model", parts: [{ text: "", thoughtSignature: "not base64!" }] }] })).not.toEqual([]);
    expect(validateRequestBody({ contents: [], toolConfig: { functionCallingConfig: { mode: "SOMETIMES" } } })).not.toEqual([]);
    expect(validateRequestBody({ contents: [{ role: "user", parts: [{ text: "hi" }] }] })).toEqual([]);
  });

  it("maps system, tools, web search and a plain prompt", () => {
    expect(encode({ system: "Be brief.", messages: [{ role: "user", content: "Weather?" }], tools: [weather], webSearch: true })).toEqual({
      contents: [{ role: "user", parts: [{ text: "Weather?" }] }],
      systemInstruction: { parts: [{ text: "Be brief." }] },
      tools: [
        { functionDeclarations: [{ name: "get_weather", description: weather.description, parametersJsonSchema: weather.parameters }] },
        { googleSearch: {} },
      ],
    });
  });

  it("toolChoice none forbids calls with functionCallingConfig NONE", () => {
    const body = encode({ messages: [{ role: "user", content: "x" }], tools: [weather], toolChoice: "none" });
    expect(body.toolConfig).toEqual({ functionCallingConfig: { mode: "NONE" } });
    expect(encode({ messages: [{ role: "user", content: "x" }], tools: [weather], toolChoice: "auto" }).toolConfig).toBeUndefined();
  });

  it("maps generation settings and thinking", () => {
    const body = encode({ messages: [{ role: "user", content: "x" }] }, "gemini-3-pro-preview", {
      maxOutputTokens: 256,
      temperature: 0,
      thinkingConfig: { thinkingLevel: "LOW", includeThoughts: true },
    });
    expect(body.generationConfig).toEqual({ maxOutputTokens: 256, temperature: 0, thinkingConfig: { thinkingLevel: "LOW", includeThoughts: true } });
  });

  it("structured output is responseMimeType + responseJsonSchema", () => {
    const schema = { type: "object", properties: { city: { type: "string" } }, required: ["city"] };
    const body = encode({ messages: [{ role: "user", content: "x" }], tools: [weather], responseSchema: { name: "response", schema } });
    expect(body.generationConfig).toEqual({ responseMimeType: "application/json", responseJsonSchema: schema });
  });

  it("before Gemini 3, structured output with tools becomes an instruction (the API rejects the combination)", () => {
    expect(structuredOutputWithTools("gemini-2.5-flash")).toBe(false);
    expect(structuredOutputWithTools("models/gemini-2.0-flash")).toBe(false);
    expect(structuredOutputWithTools("gemini-3-flash-preview")).toBe(true);
    const schema = { type: "object", properties: { n: { type: "integer" } } };
    const body = encode(
      { system: "S", messages: [{ role: "user", content: "x" }], tools: [weather], responseSchema: { name: "r", schema } },
      "gemini-2.5-flash",
    );
    expect(body.generationConfig).toBeUndefined();
    expect(body.systemInstruction).toEqual({
      parts: [{ text: "S" }, { text: `Reply with only a JSON value that matches this JSON schema: ${JSON.stringify(schema)}` }],
    });
    // without tools JSON mode works on every model
    expect(encode({ messages: [{ role: "user", content: "x" }], responseSchema: { name: "r", schema } }, "gemini-2.5-flash").generationConfig).toEqual({
      responseMimeType: "application/json",
      responseJsonSchema: schema,
    });
  });

  it("tool results become functionResponse parts in call order; objects are kept, other output is a string", () => {
    const body = encode({
      messages: [
        { role: "user", content: "go" },
        {
          role: "assistant",
          content: "Calling.",
          toolCalls: [
            { id: "a", name: "one", arguments: '{"x":1}' },
            { id: "b", name: "two", arguments: "" },
            { id: "c", name: "three", arguments: "not json" },
          ],
        },
        {
          role: "tool",
          results: [
            { callId: "c", name: "three", output: '{"error":"boom"}', isError: true },
            { callId: "a", name: "one", output: '{"ok":true}', isError: false },
            { callId: "b", name: "two", output: "[1,2]", isError: false },
          ],
        },
        { role: "user", content: "and?" },
      ],
    });
    expect(body.contents).toEqual([
      { role: "user", parts: [{ text: "go" }] },
      {
        role: "model",
        parts: [
          { text: "Calling." },
          // not from Gemini: no signature to replay, so the documented placeholder on the first call
          { functionCall: { id: "a", name: "one", args: { x: 1 } }, thoughtSignature: SKIP_SIGNATURE },
          { functionCall: { id: "b", name: "two", args: {} } },
          { functionCall: { id: "c", name: "three", args: {} } },
        ],
      },
      {
        role: "user", // the results and the next prompt merged into one user turn
        parts: [
          { functionResponse: { id: "a", name: "one", response: { output: { ok: true } } } },
          { functionResponse: { id: "b", name: "two", response: { output: "[1,2]" } } },
          { functionResponse: { id: "c", name: "three", response: { error: "boom" } } },
          { text: "and?" },
        ],
      },
    ]);
  });

  it("an error output that is not {error} is wrapped in error", () => {
    const body = encode({
      messages: [
        { role: "user", content: "go" },
        { role: "assistant", content: "", toolCalls: [{ id: "a", name: "one", arguments: "{}" }] },
        { role: "tool", results: [{ callId: "a", name: "one", output: "plain failure", isError: true }] },
      ],
    });
    expect(body.contents[2]).toEqual({ role: "user", parts: [{ functionResponse: { id: "a", name: "one", response: { error: "plain failure" } } }] });
  });

  it("consecutive user messages merge; an empty assistant turn is left out", () => {
    const body = encode({
      messages: [
        { role: "user", content: "one" },
        { role: "assistant", content: "" },
        { role: "user", content: "two" },
      ],
    });
    expect(body.contents).toEqual([{ role: "user", parts: [{ text: "one" }, { text: "two" }] }]);
  });

  it("replays Gemini's own parts verbatim, dropping calls the loop dropped", () => {
    const response = decodeJSONFile("pydantic-ai/test_google_instructions_only_with_tool_calls.1.response.json");
    const parts = fixtureJSON("pydantic-ai/test_google_instructions_only_with_tool_calls.1.response.json") as { candidates: { content: { parts: Part[] } }[] };
    const recorded = parts.candidates[0]!.content.parts;
    const [c1, c2, c3] = response.toolCalls;
    const history = (keep: typeof response.toolCalls): Message[] => [
      { role: "user", content: "" },
      { ...assistantFrom(response), toolCalls: keep } as Message,
      { role: "tool", results: keep.map((c) => ({ callId: c.id, name: c.name, output: "cars", isError: false })) },
    ];
    // all kept: the three parts exactly as received; no id on the responses (the calls had none)
    expect(encode({ messages: history([c1!, c2!, c3!]) }).contents.slice(1)).toEqual([
      { role: "model", parts: recorded },
      { role: "user", parts: [1, 2, 3].map(() => ({ functionResponse: { name: "generate_topic", response: { output: "cars" } } })) },
    ]);
    // the second call dropped: its part goes, the others stay untouched
    expect(encode({ messages: history([c1!, c3!]) }).contents[1]).toEqual({ role: "model", parts: [recorded[0], recorded[2]] });
    // the signed first call dropped: the placeholder takes its place on the first kept call
    expect(encode({ messages: history([c2!, c3!]) }).contents[1]).toEqual({
      role: "model",
      parts: [{ ...recorded[1], thoughtSignature: SKIP_SIGNATURE }, recorded[2]],
    });
  });

  it("another provider's providerData is ignored", () => {
    const body = encode({
      messages: [
        { role: "user", content: "q" },
        { role: "assistant", content: "a", providerData: { provider: "claude", value: [{ type: "thinking", thinking: "t", signature: "s" }] } },
        { role: "user", content: "q2" },
      ],
    });
    expect(body.contents[1]).toEqual({ role: "model", parts: [{ text: "a" }] });
  });
});

describe("request bodies agree with the recorded pydantic-ai requests", () => {
  it("plain stream with a system prompt and temperature (test_google_model_stream)", () => {
    const sent = cassette("pydantic-ai/test_google_model_stream.yaml")[0]!.request;
    expect(sent.uri).toBe("https://generativelanguage.googleapis.com/v1beta/models/gemini-2.0-flash-exp:streamGenerateContent?alt=sse");
    const body = encode(
      { system: "You are a helpful chatbot.", messages: [{ role: "user", content: "What is the capital of France?" }] },
      "gemini-2.0-flash-exp",
      {
        temperature: 0,
      },
    );
    const recorded = sent.parsed_body as Record<string, { parts: unknown }>;
    expect(body.contents).toEqual(recorded.contents);
    expect(body.generationConfig).toEqual(recorded.generationConfig);
    expect(body.systemInstruction!.parts).toEqual(recorded.systemInstruction!.parts);
  });

  it("a streamed call replayed with its thoughtSignature (test_google_streaming_tool_call_thought_signature)", () => {
    const [first, second] = cassette("pydantic-ai/test_google_streaming_tool_call_thought_signature.yaml");
    const response = decodeSSEFile("pydantic-ai/test_google_streaming_tool_call_thought_signature.1.sse");
    const call = response.toolCalls[0]!;
    const body = encode({
      messages: [
        { role: "user", content: "What is the capital of the user country? Call the tool" },
        assistantFrom(response),
        { role: "tool", results: [{ callId: call.id, name: "get_country", output: "Mexico", isError: false }] },
      ],
      tools: [{ name: "get_country", description: "", parameters: { additionalProperties: false, properties: {}, type: "object" } }],
    });
    const recorded = second!.request.parsed_body as { contents: { role: string; parts: Record<string, Record<string, unknown>>[] }[]; tools: unknown[] };
    expect(body.contents.map((c) => c.role)).toEqual(recorded.contents.map((c) => c.role));
    expect(body.contents[0]).toEqual(recorded.contents[0]);
    // the model turn: same call, same signature on the same part (pydantic adds its own id)
    const ours = body.contents[1]!.parts;
    const theirs = recorded.contents[1]!.parts;
    expect(ours).toHaveLength(theirs.length);
    expect(ours[0]!.functionCall).toEqual({ name: "get_country", args: {} });
    expect({ name: theirs[0]!.functionCall!.name, args: theirs[0]!.functionCall!.args }).toEqual(ours[0]!.functionCall);
    expect(std64(theirs[0]!.thoughtSignature as unknown as string)).toBe(ours[0]!.thoughtSignature);
    // the response turn: one functionResponse for get_country
    expect(body.contents[2]!.parts).toHaveLength(1);
    expect(body.contents[2]!.parts[0]!.functionResponse!.name).toBe(theirs[0]!.functionCall!.name);
    // the declaration, as pydantic sent it (snake_case field name there)
    const decl = (first!.request.parsed_body as { tools: { functionDeclarations: Record<string, unknown>[] }[] }).tools[0]!.functionDeclarations[0]!;
    expect(body.tools).toEqual([
      { functionDeclarations: [{ name: decl.name, description: decl.description, parametersJsonSchema: decl.parameters_json_schema }] },
    ]);
  });

  it("three parallel calls, only the first signed (test_google_instructions_only_with_tool_calls)", () => {
    const interactions = cassette("pydantic-ai/test_google_instructions_only_with_tool_calls.yaml");
    const response = decodeJSONFile("pydantic-ai/test_google_instructions_only_with_tool_calls.1.response.json");
    const outputs = ["cars", "penguins", "cars"];
    const body = encode({
      system: "Tell three jokes. Generate topics with the generate_topic tool.",
      messages: [
        { role: "user", content: "" },
        assistantFrom(response),
        { role: "tool", results: response.toolCalls.map((c, i) => ({ callId: c.id, name: c.name, output: outputs[i]!, isError: false })) },
      ],
    });
    const recorded = interactions[1]!.request.parsed_body as {
      contents: { role: string; parts: Record<string, Record<string, unknown>>[] }[];
      systemInstruction: { parts: unknown };
    };
    expect(body.systemInstruction!.parts).toEqual(recorded.systemInstruction.parts);
    expect(body.contents.map((c) => c.role)).toEqual(recorded.contents.map((c) => c.role));
    expect(body.contents[0]).toEqual(recorded.contents[0]);
    const strip = (p: Record<string, Record<string, unknown>>) => ({
      name: p.functionCall!.name,
      args: p.functionCall!.args,
      signature: typeof p.thoughtSignature === "string" ? std64(p.thoughtSignature as unknown as string) : undefined,
    });
    expect(body.contents[1]!.parts.map((p) => strip(p as never))).toEqual(recorded.contents[1]!.parts.map(strip));
    expect(body.contents[2]!.parts.map((p) => p.functionResponse!.name)).toEqual(recorded.contents[2]!.parts.map((p) => p.functionResponse!.name));
    expect(body.contents[2]!.parts.map((p) => p.functionResponse!.response.output)).toEqual(
      recorded.contents[2]!.parts.map((p) => (p.functionResponse!.response as { return_value: unknown }).return_value),
    );
  });

  it("a grounded answer replayed as one text part (test_google_model_web_search_tool_stream)", () => {
    const [first, second] = cassette("pydantic-ai/test_google_model_web_search_tool_stream.yaml");
    const response = decodeSSEFile("pydantic-ai/test_google_model_web_search_tool_stream.1.sse");
    const body = encode({
      system: "You are a helpful chatbot.",
      messages: [
        { role: "user", content: "What is the weather in San Francisco today?" },
        assistantFrom(response),
        { role: "user", content: "how about Mexico City?" },
      ],
      webSearch: true,
    });
    const recorded = second!.request.parsed_body as { contents: unknown; tools: unknown };
    expect(body.contents).toEqual(recorded.contents);
    expect(body.tools).toEqual(recorded.tools);
    expect(body.tools).toEqual((first!.request.parsed_body as { tools: unknown }).tools);
  });

  it("google_search, non-stream (test_google_model_web_search_tool)", () => {
    const [first, second] = cassette("pydantic-ai/test_google_model_web_search_tool.yaml");
    const sent = first!.request.parsed_body as { contents: unknown; tools: unknown; systemInstruction: { parts: unknown } };
    const body = encode({
      system: "You are a helpful chatbot.",
      messages: [{ role: "user", content: "What is the weather in San Francisco today?" }],
      webSearch: true,
    });
    expect(body.contents).toEqual(sent.contents);
    expect(body.tools).toEqual(sent.tools);
    expect(body.systemInstruction!.parts).toEqual(sent.systemInstruction.parts);
    const response = decodeJSONFile("pydantic-ai/test_google_model_web_search_tool.1.response.json");
    const next = encode({
      messages: [
        { role: "user", content: "What is the weather in San Francisco today?" },
        assistantFrom(response),
        { role: "user", content: "how about Mexico City?" },
      ],
      webSearch: true,
    });
    expect(next.contents).toEqual((second!.request.parsed_body as { contents: unknown }).contents);
  });

  it("structured output (test_google_native_output)", () => {
    const sent = cassette("pydantic-ai/test_google_native_output.yaml")[0]!.request.parsed_body as {
      contents: unknown;
      generationConfig: { responseJsonSchema: Record<string, unknown>; responseMimeType: string };
    };
    const body = encode(
      {
        messages: [{ role: "user", content: "What is the largest city in Mexico?" }],
        responseSchema: { name: "CityLocation", schema: sent.generationConfig.responseJsonSchema },
      },
      "gemini-2.0-flash",
    );
    expect(body.contents).toEqual(sent.contents);
    expect(body.generationConfig).toEqual({
      responseMimeType: sent.generationConfig.responseMimeType,
      responseJsonSchema: sent.generationConfig.responseJsonSchema,
    });
  });

  it("thought summaries requested with includeThoughts (test_google_model_thinking_part_iter)", () => {
    const sent = cassette("pydantic-ai/test_google_model_thinking_part_iter.yaml")[0]!.request.parsed_body as { generationConfig: unknown; contents: unknown };
    const body = encode({ system: "You are a helpful assistant.", messages: [{ role: "user", content: "How do I cross the street?" }] }, "gemini-2.5-pro", {
      thinkingConfig: { includeThoughts: true },
    });
    expect(body.generationConfig).toEqual(sent.generationConfig);
    expect(body.contents).toEqual(sent.contents);
  });
});
