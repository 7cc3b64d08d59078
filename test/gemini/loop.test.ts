// Full runs through createClient → loop → gemini() → HTTP → the wire-faithful mock,
// which rejects what the real API rejects. Every request body sent is also checked
// against the GenerateContentRequest schema of Google's OpenAPI export.

import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { gemini } from "../../adapters/gemini/index.js";
import { createClient, jsonTool, type Message, type StreamEvent, tool, webSearch } from "../../src/index.js";
import { type GeminiMock, MOCK_API_KEY, type MockTurn } from "../mock/gemini.js";
import { providerFor, withMock } from "./helpers.js";
import { fixtureJSON } from "./recordings.js";
import { validateRequestBody } from "./spec.js";

const getWeather = tool({
  name: "get_weather",
  description: "Current temperature for a city.",
  input: v.object({ city: v.pipe(v.string(), v.description("City name.")) }),
  run: async ({ city }) => ({ city, celsius: city === "Paris" ? 21 : 18 }),
});

type Body = { contents: { role: string; parts: Record<string, unknown>[] }[]; [k: string]: unknown };
const bodies = (mock: GeminiMock) => mock.requests.map((r) => r.body as Body);

function expectValidRequests(mock: GeminiMock): void {
  for (const r of mock.requests) expect(validateRequestBody(r.body)).toEqual([]);
}

/** The history invariant: every call answered by the next tool message, in order. */
function expectValidHistory(history: readonly Message[]): void {
  history.forEach((m, i) => {
    if (m.role === "assistant" && m.toolCalls?.length) {
      const next = history[i + 1];
      expect(next?.role).toBe("tool");
      expect((next as Extract<Message, { role: "tool" }>).results.map((r) => r.callId)).toEqual(m.toolCalls.map((c) => c.id));
    }
  });
}

async function collect(iter: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const out: StreamEvent[] = [];
  for await (const e of iter) out.push(e);
  return out;
}

describe("gemini() in the loop", () => {
  it("chat with sequential calls: each result goes back as a functionResponse", async () => {
    const script: MockTurn[] = [
      { text: "Let me check Paris.", toolCalls: [{ name: "get_weather", input: { city: "Paris" } }] },
      { toolCalls: [{ name: "get_weather", input: { city: "Lyon" } }] },
      { text: "Paris 21°C, Lyon 18°C." },
    ];
    await withMock({ script }, async (mock) => {
      const client = createClient({ provider: providerFor(mock), tools: [getWeather], systemPrompt: "Use the tools." });
      expect(await client.chat("Paris and Lyon?")).toBe("Paris 21°C, Lyon 18°C.");
      const history = client.history;
      expect(history.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant", "tool", "assistant"]);
      expectValidHistory(history);
      const last = bodies(mock)[2]!;
      expect(last.systemInstruction).toEqual({ parts: [{ text: "Use the tools." }] });
      expect(last.contents.map((c) => c.role)).toEqual(["user", "model", "user", "model", "user"]);
      expect(last.contents[1]!.parts).toEqual([{ text: "Let me check Paris." }, { functionCall: { name: "get_weather", args: { city: "Paris" } } }]);
      expect(last.contents[2]!.parts).toEqual([{ functionResponse: { name: "get_weather", response: { output: { city: "Paris", celsius: 21 } } } }]);
      expect(last.contents[4]!.parts).toEqual([{ functionResponse: { name: "get_weather", response: { output: { city: "Lyon", celsius: 18 } } } }]);
      expect(client.lastRun).toMatchObject({ steps: 3, toolCalls: 2, toolFailures: 0 });
      expectValidRequests(mock);
    });
  });

  it("parallel calls with ids: responses in call order, ids echoed", async () => {
    const script: MockTurn[] = [
      {
        toolCalls: [
          { id: "c-1", name: "get_weather", input: { city: "Paris" } },
          { id: "c-2", name: "get_weather", input: { city: "Lyon" } },
          { id: "c-3", name: "get_weather", input: { city: "Nice" } },
        ],
        thoughtSignature: "c2lnLXBhcmFsbGVs",
      },
      { text: "Done." },
    ];
    await withMock({ script }, async (mock) => {
      const client = createClient({ provider: providerFor(mock), tools: [getWeather], parallelTools: true });
      expect(await client.chat("Three cities")).toBe("Done.");
      const h = client.history;
      expect((h[1] as Extract<Message, { role: "assistant" }>).toolCalls!.map((c) => c.id)).toEqual(["c-1", "c-2", "c-3"]);
      const second = bodies(mock)[1]!;
      expect(second.contents[1]!.parts[0]).toEqual({
        functionCall: { name: "get_weather", args: { city: "Paris" }, id: "c-1" },
        thoughtSignature: "c2lnLXBhcmFsbGVs",
      });
      expect(second.contents[2]!.parts.map((p) => (p.functionResponse as { id: string }).id)).toEqual(["c-1", "c-2", "c-3"]);
      expect(second.contents[2]!.parts.map((p) => (p.functionResponse as { response: { output: { city: string } } }).response.output.city)).toEqual([
        "Paris",
        "Lyon",
        "Nice",
      ]);
      expectValidRequests(mock);
    });
  });

  it("stream: text deltas, the call as one delta with its full arguments, results, finish", async () => {
    const script: MockTurn[] = [
      { text: "Checking the weather now.", toolCalls: [{ name: "get_weather", input: { city: "Paris" } }] },
      { text: "It is 21 degrees in Paris today." },
    ];
    await withMock({ script }, async (mock) => {
      const client = createClient({ provider: providerFor(mock), tools: [getWeather] });
      const events = await collect(client.stream("Weather in Paris?"));
      expect(mock.requests.every((r) => r.url.endsWith(":streamGenerateContent?alt=sse"))).toBe(true);
      const types = events.map((e) => e.type);
      expect(types[types.length - 1]).toBe("finish");
      const deltas = events.filter((e) => e.type === "text-delta").map((e) => (e as { text: string }).text);
      expect(deltas.length).toBeGreaterThan(2);
      expect(deltas.join("")).toBe("Checking the weather now.It is 21 degrees in Paris today.");
      const callDeltas = events.filter((e) => e.type === "tool-call-delta");
      expect(callDeltas).toHaveLength(1);
      const call = events.find((e) => e.type === "tool-call") as Extract<StreamEvent, { type: "tool-call" }>;
      expect(callDeltas[0]).toEqual({ type: "tool-call-delta", callId: call.callId, name: "get_weather", argsDelta: '{"city":"Paris"}' });
      expect(call.input).toEqual({ city: "Paris" });
      expect(events.find((e) => e.type === "tool-result")).toMatchObject({ callId: call.callId, output: '{"city":"Paris","celsius":21}', isError: false });
      expect(events.filter((e) => e.type === "step-finish").map((e) => (e as { finishReason: string }).finishReason)).toEqual(["tool-calls", "stop"]);
      expect(events[events.length - 1]).toMatchObject({ type: "finish", text: "It is 21 degrees in Paris today.", steps: 2 });
      expectValidRequests(mock);
    });
  });

  it("ask: native structured output, one re-ask when the answer does not match", async () => {
    const City = v.object({ city: v.string(), country: v.string() });
    const script: MockTurn[] = [{ text: '{"city": "Mexico City"}' }, { text: '{"city": "Mexico City", "country": "Mexico"}' }];
    await withMock({ script }, async (mock) => {
      const client = createClient({ provider: providerFor(mock) });
      expect(await client.ask("Largest city in Mexico?", City)).toEqual({ city: "Mexico City", country: "Mexico" });
      const [first, second] = bodies(mock);
      for (const b of [first!, second!]) {
        expect(b.generationConfig).toEqual({
          responseMimeType: "application/json",
          responseJsonSchema: { type: "object", properties: { city: { type: "string" }, country: { type: "string" } }, required: ["city", "country"] },
        });
      }
      const reask = second!.contents[2]!.parts[0]!.text as string;
      expect(reask).toMatch(/did not match the required JSON schema/);
      expectValidRequests(mock);
    });
  });

  it("web search attaches googleSearch (no function) and keeps the grounding", async () => {
    await withMock({ script: [{ text: "Sunny in Paris, 21°C." }] }, async (mock) => {
      const client = createClient({ provider: providerFor(mock), tools: [webSearch(), getWeather] });
      expect(await client.chat("Weather in Paris today?")).toBe("Sunny in Paris, 21°C.");
      const body = bodies(mock)[0]!;
      expect(body.tools).toEqual([
        { functionDeclarations: [{ name: "get_weather", description: "Current temperature for a city.", parametersJsonSchema: getWeather.parameters }] },
        { googleSearch: {} },
      ]);
      const answer = client.history[1] as Extract<Message, { role: "assistant" }>;
      const value = answer.providerData!.value as { groundingMetadata: { webSearchQueries: string[]; groundingChunks: unknown[] } };
      expect(value.groundingMetadata.webSearchQueries).toEqual(["Weather in Paris today?"]);
      expect(value.groundingMetadata.groundingChunks).toHaveLength(1);
      expect(client.lastRun!.usage.webSearches).toBe(1);
      expectValidRequests(mock);
    });
  });

  it("thoughtSignature round-trip: the mock (like Gemini 3) rejects a call sent back without it", async () => {
    const script: MockTurn[] = [
      { toolCalls: [{ name: "get_weather", input: { city: "Paris" } }], thoughtSignature: "RXNpZ25hdHVyZS0x" },
      { toolCalls: [{ name: "get_weather", input: { city: "Lyon" } }], thoughtSignature: "RXNpZ25hdHVyZS0y" },
      { text: "Both checked.", thoughtSignature: "RXNpZ25hdHVyZS0z" },
      { text: "Still fine." },
    ];
    await withMock({ script }, async (mock) => {
      const client = createClient({ provider: providerFor(mock), tools: [getWeather] });
      const events = await collect(client.stream("Paris, then Lyon"));
      expect(events[events.length - 1]).toMatchObject({ type: "finish", text: "Both checked." });
      const third = bodies(mock)[2]!;
      expect(third.contents[1]!.parts[0]!.thoughtSignature).toBe("RXNpZ25hdHVyZS0x");
      expect(third.contents[3]!.parts[0]!.thoughtSignature).toBe("RXNpZ25hdHVyZS0y");
      // a text signature that arrived on the final empty-text chunk stays on that part
      expect(await client.chat("And now?")).toBe("Still fine.");
      expect(bodies(mock)[3]!.contents[5]!.parts).toEqual([{ text: "Both checked." }, { text: "", thoughtSignature: "RXNpZ25hdHVyZS0z" }]);
      expectValidRequests(mock);

      // the same history without providerData (as if it came from another provider) uses the documented placeholder
      const stripped = client.history.map((m) => (m.role === "assistant" ? { ...m, providerData: undefined } : m)) as Message[];
      const resumed = createClient({
        provider: providerFor(mock),
        tools: [getWeather],
        history: stripped.map((m) => JSON.parse(JSON.stringify(m)) as Message),
      });
      mock.enqueue({ status: 200, body: { candidates: [{ content: { parts: [{ text: "ok" }], role: "model" }, finishReason: "STOP", index: 0 }] } });
      expect(await resumed.chat("Again")).toBe("ok");
      const sent = mock.requests[mock.requests.length - 1]!.body as Body;
      expect(sent.contents[1]!.parts[0]!.thoughtSignature).toBe("skip_thought_signature_validator");
    });
  });

  it("MALFORMED_FUNCTION_CALL is re-asked inside the adapter, not a crash", async () => {
    const script: MockTurn[] = [{ malformed: true }, { toolCalls: [{ name: "get_weather", input: { city: "Paris" } }] }, { text: "21°C." }];
    await withMock({ script }, async (mock) => {
      const client = createClient({ provider: providerFor(mock), tools: [getWeather] });
      expect(await client.chat("Weather in Paris?")).toBe("21°C.");
      expect(mock.requests).toHaveLength(3);
      const reask = bodies(mock)[1]!;
      expect(reask.contents).toHaveLength(1);
      expect(reask.contents[0]!.parts[0]).toEqual({ text: "Weather in Paris?" });
      expect(reask.contents[0]!.parts[1]!.text).toMatch(/^Your last function call was malformed \(Malformed function call: .*\)\. Call the function again/);
      // the re-ask is not kept in the history: the loop sees one model call
      expect(client.history.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
      expect(client.lastRun!.steps).toBe(2);
      expectValidRequests(mock);
    });
  });

  it("a MALFORMED_FUNCTION_CALL that persists after the re-asks is a typed error, and the history stays valid", async () => {
    await withMock({ script: [{ malformed: true }, { malformed: true }, { malformed: true }, { text: "Sorry." }] }, async (mock) => {
      const client = createClient({ provider: providerFor(mock), tools: [getWeather] });
      const err = await collect(client.stream("Weather?")).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: "provider_error", type: "MALFORMED_FUNCTION_CALL" });
      expect(mock.requests).toHaveLength(3); // the call and two re-asks
      expect(client.history).toEqual([{ role: "user", content: "Weather?" }]);
      expect(await client.chat("Never mind.")).toBe("Sorry.");
      expectValidRequests(mock);
    });
  });

  it("abort mid-stream leaves a valid history and the next chat works", async () => {
    await withMock({ script: [{ toolCalls: [{ name: "get_weather", input: { city: "Paris" } }], thoughtSignature: "c2ln" }] }, async (mock) => {
      const client = createClient({ provider: providerFor(mock), tools: [getWeather] });
      const controller = new AbortController();
      // step 2 streams one chunk, then hangs
      const first = { candidates: [{ content: { parts: [{ text: "It is" }], role: "model" }, index: 0 }] };
      let served = false;
      const events: StreamEvent[] = [];
      const run = (async () => {
        for await (const e of client.stream("Weather in Paris?", { signal: controller.signal })) {
          events.push(e);
          if (e.type === "tool-result" && !served) {
            served = true;
            mock.enqueue({ sse: [`data: ${JSON.stringify(first)}\r\n\r\n`], holdOpen: true });
          }
          if (e.type === "text-delta") controller.abort();
        }
      })();
      const err = await run.catch((e: unknown) => e);
      expect((err as Error).name).toBe("AbortError");
      expect(events.filter((e) => e.type === "text-delta")).toEqual([{ type: "text-delta", text: "It is" }]);
      const history = client.history;
      expect(history.map((m) => m.role)).toEqual(["user", "assistant", "tool"]);
      expectValidHistory(history);

      mock.enqueue({
        status: 200,
        body: { candidates: [{ content: { parts: [{ text: "21°C in Paris." }], role: "model" }, finishReason: "STOP", index: 0 }] },
      });
      expect(await client.chat("So?")).toBe("21°C in Paris.");
      const last = mock.requests[mock.requests.length - 1]!.body as Body;
      expect(last.contents.map((c) => c.role)).toEqual(["user", "model", "user"]);
      expect(last.contents[2]!.parts.map((p) => Object.keys(p)[0])).toEqual(["functionResponse", "text"]);
      expectValidRequests(mock);
    });
  });

  it("finalAnswerOnMaxSteps: the last call forbids tools with mode NONE", async () => {
    const script: MockTurn[] = [{ toolCalls: [{ name: "get_weather", input: { city: "Paris" } }] }, { text: "Paris is 21°C." }];
    await withMock({ script }, async (mock) => {
      const client = createClient({ provider: providerFor(mock), tools: [getWeather], maxSteps: 1, finalAnswerOnMaxSteps: true });
      expect(await client.chat("Weather?")).toBe("Paris is 21°C.");
      expect(bodies(mock)[0]!.toolConfig).toBeUndefined();
      expect(bodies(mock)[1]!.toolConfig).toEqual({ functionCallingConfig: { mode: "NONE" } });
      expectValidRequests(mock);
    });
  });

  it("a saved history (JSON) resumes with its signatures intact", async () => {
    const script: MockTurn[] = [
      { toolCalls: [{ name: "get_weather", input: { city: "Paris" } }], thoughtSignature: "c2F2ZWQ=" },
      { text: "21°C." },
      { text: "Yes." },
    ];
    await withMock({ script }, async (mock) => {
      const a = createClient({ provider: providerFor(mock), tools: [getWeather] });
      await a.chat("Weather?");
      const saved = JSON.parse(JSON.stringify(a.history)) as Message[];
      const b = createClient({ provider: providerFor(mock), tools: [getWeather], history: saved });
      expect(await b.chat("Sure?")).toBe("Yes.");
      expect(bodies(mock)[2]!.contents[1]!.parts[0]!.thoughtSignature).toBe("c2F2ZWQ=");
    });
  });

  it("a tool error goes back as {error}", async () => {
    const failing = jsonTool({
      name: "lookup",
      description: "Looks something up.",
      parameters: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
      run: async () => {
        throw new Error("backend down");
      },
    });
    await withMock({ script: [{ toolCalls: [{ name: "lookup", input: { q: "x" } }] }, { text: "Sorry." }] }, async (mock) => {
      const client = createClient({ provider: providerFor(mock), tools: [failing] });
      expect(await client.chat("Find x")).toBe("Sorry.");
      expect(bodies(mock)[1]!.contents[2]!.parts).toEqual([{ functionResponse: { name: "lookup", response: { error: "backend down" } } }]);
    });
  });
});

describe("errors", () => {
  it("a wrong key → ProviderError 400 INVALID_ARGUMENT; the key is in neither the error nor the URL", async () => {
    await withMock({}, async (mock) => {
      const key = "AIzaSy-wrong-key-0000000000";
      const client = createClient({ provider: gemini({ apiKey: key, model: "gemini-2.5-flash", baseURL: mock.url }) });
      const err = (await client.chat("hi").catch((e: unknown) => e)) as Record<string, unknown>;
      expect(err).toMatchObject({ code: "provider_error", provider: "gemini", status: 400, type: "INVALID_ARGUMENT", retryable: false });
      expect(err.message).toBe("gemini 400 INVALID_ARGUMENT: API key not valid. Please pass a valid API key.");
      expect(JSON.stringify(err)).not.toContain(key);
      expect(String(err)).not.toContain(key);
      expect(String((err as { stack?: string }).stack)).not.toContain(key);
      expect(mock.requests[0]!.url).toBe("/v1beta/models/gemini-2.5-flash:generateContent");
      expect(mock.requests[0]!.headers["x-goog-api-key"]).toBe(key);
    });
  });

  it("no key → 403 PERMISSION_DENIED", async () => {
    await withMock({}, async (mock) => {
      const client = createClient({ provider: gemini({ model: "gemini-2.5-flash", baseURL: mock.url }) });
      await expect(client.chat("hi")).rejects.toMatchObject({ status: 403, type: "PERMISSION_DENIED" });
      expect(mock.requests[0]!.headers["x-goog-api-key"]).toBeUndefined();
    });
  });

  it("a key echoed back in an error message is redacted; the request id is kept", async () => {
    await withMock({}, async (mock) => {
      mock.enqueue({
        status: 400,
        headers: { "x-request-id": "req-123" },
        body: { error: { code: 400, message: `bad key ${MOCK_API_KEY} here`, status: "INVALID_ARGUMENT" } },
      });
      const err = (await createClient({ provider: providerFor(mock) })
        .chat("hi")
        .catch((e: unknown) => e)) as Record<string, unknown>;
      expect(err).toMatchObject({ status: 400, requestId: "req-123" });
      expect(err.message).toBe("gemini 400 INVALID_ARGUMENT: bad key [redacted] here");
    });
  });

  it("429 with RetryInfo is retried after the delay it names", async () => {
    await withMock({ script: [{ text: "after retry" }] }, async (mock) => {
      const body = fixtureJSON("vercel-ai/google-429-retry-info.json") as { error: { details: { retryDelay?: string }[] } };
      body.error.details[1]!.retryDelay = "0.05s";
      mock.enqueue({ status: 429, body });
      const client = createClient({ provider: providerFor(mock), maxRetries: 1 });
      expect(await client.chat("hi")).toBe("after retry");
      expect(mock.requests).toHaveLength(2);
      expect(mock.requests[1]!.body).toEqual(mock.requests[0]!.body);
    });
  });

  it("429 after the last retry → ProviderError RESOURCE_EXHAUSTED", async () => {
    await withMock({}, async (mock) => {
      const body = fixtureJSON("vercel-ai/google-429-retry-info.json") as { error: { details: { retryDelay?: string }[] } };
      body.error.details[1]!.retryDelay = "0.01s";
      mock.enqueue({ status: 429, body });
      mock.enqueue({ status: 429, body });
      const err = await createClient({ provider: providerFor(mock), maxRetries: 1 })
        .chat("hi")
        .catch((e: unknown) => e);
      expect(err).toMatchObject({ code: "provider_error", status: 429, type: "RESOURCE_EXHAUSTED", retryable: true });
      expect(mock.requests).toHaveLength(2);
    });
  });

  it("an error object inside the stream → ProviderError with its status", async () => {
    await withMock({}, async (mock) => {
      const text = { candidates: [{ content: { parts: [{ text: "Hel" }], role: "model" }, index: 0 }] };
      const error = { error: { code: 503, message: "The model is overloaded. Please try again later.", status: "UNAVAILABLE" } };
      mock.enqueue({ sse: [`data: ${JSON.stringify(text)}\r\n\r\n`, `data: ${JSON.stringify(error)}\r\n\r\n`] });
      const client = createClient({ provider: providerFor(mock) });
      const err = await collect(client.stream("hi")).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: "provider_error", status: 503, type: "UNAVAILABLE" });
      expect((err as Error).message).toBe("gemini 503 UNAVAILABLE: The model is overloaded. Please try again later.");
      expect(client.history.map((m) => m.role)).toEqual(["user"]);
    });
  });

  it("a stream that ends without a finishReason → StreamError", async () => {
    await withMock({}, async (mock) => {
      const text = { candidates: [{ content: { parts: [{ text: "Hel" }], role: "model" }, index: 0 }] };
      mock.enqueue({ sse: [`data: ${JSON.stringify(text)}\r\n\r\n`] });
      await expect(collect(createClient({ provider: providerFor(mock) }).stream("hi"))).rejects.toMatchObject({ code: "stream_error", provider: "gemini" });
    });
  });

  it("a connection cut mid-stream → StreamError", async () => {
    await withMock({}, async (mock) => {
      const text = { candidates: [{ content: { parts: [{ text: "Hel" }], role: "model" }, index: 0 }] };
      mock.enqueue({ sse: [`data: ${JSON.stringify(text)}\r\n\r\n`, 'data: {"candi'], cutAfter: true });
      await expect(collect(createClient({ provider: providerFor(mock) }).stream("hi"))).rejects.toMatchObject({ code: "stream_error" });
    });
  });

  it("a blocked prompt is a content-filter finish, not an error", async () => {
    await withMock({}, async (mock) => {
      mock.enqueue({
        status: 200,
        body: { promptFeedback: { blockReason: "PROHIBITED_CONTENT" }, usageMetadata: { promptTokenCount: 7, totalTokenCount: 7 } },
      });
      const events = await collect(createClient({ provider: providerFor(mock) }).stream("bad")).catch((e: unknown) => e);
      // a stream request gets a JSON body here: http.ts refuses a non-SSE answer
      expect(events).toMatchObject({ code: "provider_error", type: "invalid_response" });
      mock.enqueue({
        sse: [`data: ${JSON.stringify({ promptFeedback: { blockReason: "PROHIBITED_CONTENT" }, usageMetadata: { promptTokenCount: 7 } })}\r\n\r\n`],
      });
      const streamed = await collect(createClient({ provider: providerFor(mock) }).stream("bad"));
      expect(streamed.find((e) => e.type === "step-finish")).toMatchObject({ finishReason: "content-filter", usage: { inputTokens: 7, outputTokens: 0 } });
    });
  });
});

describe("transport settings", () => {
  it("idleTimeout: a stream that goes quiet fails with IdleTimeoutError", async () => {
    await withMock({}, async (mock) => {
      const text = { candidates: [{ content: { parts: [{ text: "Hel" }], role: "model" }, index: 0 }] };
      mock.enqueue({ sse: [`data: ${JSON.stringify(text)}\r\n\r\n`], holdOpen: true });
      const client = createClient({ provider: providerFor(mock), idleTimeout: 50 });
      await expect(collect(client.stream("hi"))).rejects.toMatchObject({ code: "idle_timeout", ms: 50 });
    });
  });

  it("refuses to send a key from a browser to Google's own host unless allowed; a proxy URL needs nothing", async () => {
    const g = globalThis as Record<string, unknown>;
    g.window = {};
    g.document = {};
    try {
      const direct = gemini({ apiKey: "k", model: "gemini-2.5-flash", fetch: async () => new Response("{}") });
      await expect(direct.generate({ messages: [{ role: "user", content: "x" }], tools: [], webSearch: false })).rejects.toMatchObject({ code: "browser_key" });
      await withMock({ script: [{ text: "via proxy" }] }, async (mock) => {
        const proxied = createClient({ provider: providerFor(mock) });
        expect(await proxied.chat("x")).toBe("via proxy");
        const allowed = createClient({
          provider: gemini({
            apiKey: MOCK_API_KEY,
            model: "gemini-2.5-flash",
            dangerouslyAllowBrowser: true,
            // the default baseURL, answered by the mock
            fetch: (input, init) => fetch(String(input).replace("https://generativelanguage.googleapis.com/v1beta", mock.url), init),
          }),
        });
        mock.enqueue({ status: 200, body: { candidates: [{ content: { parts: [{ text: "allowed" }], role: "model" }, finishReason: "STOP", index: 0 }] } });
        expect(await allowed.chat("x")).toBe("allowed");
      });
    } finally {
      delete g.window;
      delete g.document;
    }
  });

  it("sends extra headers and accepts a models/ prefix", async () => {
    await withMock({}, async (mock) => {
      const client = createClient({
        provider: gemini({ apiKey: MOCK_API_KEY, model: "models/gemini-2.5-flash", baseURL: mock.url + "/", headers: { "x-app": "demo" } }),
      });
      expect(await client.chat("x")).toBe("OK");
      expect(mock.requests[0]!.url).toBe("/v1beta/models/gemini-2.5-flash:generateContent");
      expect(mock.requests[0]!.headers["x-app"]).toBe("demo");
    });
  });
});

describe("the provider object", () => {
  it("never shows the key", () => {
    const p = gemini({ apiKey: "AIza-secret-key-value", model: "gemini-2.5-flash" });
    expect(JSON.stringify(p)).toBe('{"name":"gemini","model":"gemini-2.5-flash"}');
    expect(Object.values(p).some((x) => x === "AIza-secret-key-value")).toBe(false);
    expect(p.name).toBe("gemini");
  });

  it("checkTools runs on setTools and names the tool and path", () => {
    const client = createClient({ provider: gemini({ apiKey: "k", model: "gemini-2.5-flash" }) });
    const bad = jsonTool({
      name: "find",
      description: "d",
      parameters: { type: "object", properties: { where: { $ref: "#/$defs/Place" } } },
      run: async () => "x",
    });
    expect(() => client.setTools([bad])).toThrow(expect.objectContaining({ code: "unsupported_schema", toolName: "find", path: "/properties/where/$ref" }));
    expect(() => client.setTools([getWeather])).not.toThrow();
  });
});
