// fallback() over the real adapters and their wire-faithful mocks: an overloaded or unreachable
// provider hands the same request to the next one (another wire format), never after a stream
// delivered a delta; another provider's providerData is not sent; step-finish names who answered;
// no tool runs twice.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import * as v from "valibot";
import { afterEach, describe, expect, it } from "vitest";
import { claude } from "../../adapters/claude/index.js";
import { gemini } from "../../adapters/gemini/index.js";
import { openai, openaiChat, openaiCompatible } from "../../adapters/openai/index.js";
import { IdleTimeoutError, isToolloopError, ProviderError, StreamError } from "../../src/base/errors.js";
import { shouldFallBack } from "../../src/cost/fallback.js";
import { createClient, fallback, type Provider, type StreamEvent, tool, webSearch } from "../../src/index.js";
import { scriptedProvider } from "../../src/testing.js";
import { historyProblems } from "../core/helpers.js";
import { type ClaudeMock, errorBody, startClaudeMock } from "../mock/claude.js";
import { type GeminiMock, MOCK_API_KEY, startGeminiMock } from "../mock/gemini.js";
import { type OpenAIMock, startOpenAIChatMock } from "../mock/openai-chat.js";
import { startOpenAIResponsesMock } from "../mock/openai-responses.js";

const CLAUDE_KEY = "sk-ant-test-0123456789";
const OPENAI_KEY = "sk-test-openai-0123456789";
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c()));
});
const track = <T extends { close(): Promise<void> }>(m: T): T => {
  closers.push(() => m.close());
  return m;
};

let runs: string[] = [];
const getWeather = tool({
  name: "get_weather",
  description: "Current temperature for a city.",
  input: v.object({ city: v.string() }),
  run: async ({ city }) => {
    runs.push(city);
    return { city, celsius: 21 };
  },
});
afterEach(() => {
  runs = [];
});

const claudeOn = (mock: ClaudeMock | { url: string }) => claude({ apiKey: CLAUDE_KEY, model: "claude-sonnet-4-5", baseURL: mock.url });
const openaiOn = (mock: OpenAIMock, api: "responses" | "chat" = "responses") =>
  (api === "chat" ? openaiChat : openai)({ apiKey: OPENAI_KEY, model: "gpt-5", baseURL: mock.url });
const geminiOn = (mock: GeminiMock) => gemini({ apiKey: MOCK_API_KEY, model: "gemini-3-pro-preview", baseURL: mock.url });
const overloaded = { status: 529, headers: { "retry-after": "0" }, body: errorBody("overloaded_error", "Overloaded") };

/** A URL where nothing listens: a server that was started and closed again. */
async function refusedURL(path: string): Promise<string> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return `http://127.0.0.1:${port}${path}`;
}

async function collect(it: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const out: StreamEvent[] = [];
  for await (const e of it) out.push(e);
  return out;
}
const stepProviders = (events: StreamEvent[]) => events.flatMap((e) => (e.type === "step-finish" ? [e.provider] : []));

describe("fallback() across wire formats", () => {
  for (const stream of [false, true]) {
    it(`Claude 529 overloaded (after its retries) → OpenAI Responses answers the same request, without Claude's providerData (${stream ? "stream" : "json"})`, async () => {
      // Step 1 Claude answers with thinking (providerData) and a tool call; step 2 Claude is overloaded.
      const cm = track(
        await startClaudeMock({ apiKey: CLAUDE_KEY, script: [{ thinking: "Look it up.", toolCalls: [{ name: "get_weather", input: { city: "Paris" } }] }] }),
      );
      const om = track(await startOpenAIResponsesMock({ apiKey: OPENAI_KEY, script: [{ text: "Paris is 21 °C." }] }));
      const client = createClient({ provider: fallback([claudeOn(cm), openaiOn(om)]), tools: [getWeather] });
      let events: StreamEvent[] = [];
      let text: string;
      const run = stream ? collect(client.stream("Weather in Paris?")) : client.chat("Weather in Paris?");
      // The 529s are queued once the first request has arrived (the mock takes queued answers
      // first, so they land on step 2's request and its two retries).
      while (cm.requests.length < 1) await new Promise((r) => setTimeout(r, 5));
      for (let i = 0; i < 3; i++) cm.enqueue(overloaded);
      const out = await run;
      if (stream) {
        events = out as StreamEvent[];
        const fin = events.at(-1)!;
        text = fin.type === "finish" ? fin.text : "";
        expect(stepProviders(events)).toEqual(["claude", "openai"]);
      } else text = client.lastRun!.text;
      expect(text).toBe("Paris is 21 °C.");
      expect(runs).toEqual(["Paris"]); // the tool ran once
      expect(cm.requests.length).toBe(4); // 1 answered + 1 overloaded + 2 retries
      expect(om.requests.length).toBe(1);
      const body = JSON.stringify(om.requests[0]!.body);
      expect(body).not.toContain("mocksig_"); // Claude's thinking signature stays with Claude
      expect(body).toContain("Paris");
      expect(historyProblems(client.history)).toEqual([]);
    });
  }

  it("a refused connection → the next provider (Claude unreachable → Gemini), streamed", async () => {
    const gm = track(
      await startGeminiMock({ apiKey: MOCK_API_KEY, script: [{ toolCalls: [{ name: "get_weather", input: { city: "Oslo" } }] }, { text: "Oslo is 21 °C." }] }),
    );
    const dead = claude({ apiKey: CLAUDE_KEY, model: "claude-sonnet-4-5", baseURL: await refusedURL("/v1") });
    const client = createClient({ provider: fallback([dead, geminiOn(gm)]), tools: [getWeather], maxRetries: 0 });
    const events = await collect(client.stream("Weather in Oslo?"));
    expect(stepProviders(events)).toEqual(["gemini", "gemini"]);
    expect(events.filter((e) => e.type === "text-delta").length).toBeGreaterThan(0);
    expect(runs).toEqual(["Oslo"]);
    expect(gm.requests.length).toBe(2);
  });

  it("three formats in a row: Claude 529 → Chat Completions 503 → Gemini answers", async () => {
    const cm = track(await startClaudeMock({ apiKey: CLAUDE_KEY, script: [] }));
    const om = track(await startOpenAIChatMock({ apiKey: OPENAI_KEY, script: [] }));
    const gm = track(await startGeminiMock({ apiKey: MOCK_API_KEY, script: [{ text: "Hello from Gemini." }] }));
    cm.enqueue(overloaded);
    om.enqueue({
      status: 503,
      headers: { "retry-after": "0" },
      body: { error: { message: "The server is overloaded", type: "server_error", param: null, code: null } },
    });
    const client = createClient({ provider: fallback([claudeOn(cm), openaiOn(om, "chat"), geminiOn(gm)]), maxRetries: 0 });
    const events = await collect(client.stream("Hi"));
    expect(stepProviders(events)).toEqual(["gemini"]);
    expect([cm.requests.length, om.requests.length, gm.requests.length]).toEqual([1, 1, 1]);
  });

  it("never after a stream delivered a delta: the Claude stream cut mid-text fails the call, OpenAI is not asked", async () => {
    const cm = track(await startClaudeMock({ apiKey: CLAUDE_KEY, script: [] }));
    const om = track(await startOpenAIResponsesMock({ apiKey: OPENAI_KEY, script: [{ text: "should not be used" }] }));
    const ev = (type: string, data: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
    cm.enqueue({
      sse: [
        ev("message_start", {
          message: {
            id: "msg_1",
            type: "message",
            role: "assistant",
            model: "claude-sonnet-4-5",
            content: [],
            stop_reason: null,
            stop_sequence: null,
            usage: { input_tokens: 10, output_tokens: 1 },
          },
        }),
        ev("content_block_start", { index: 0, content_block: { type: "text", text: "" } }),
        ev("content_block_delta", { index: 0, delta: { type: "text_delta", text: "Hel" } }),
        ev("error", { error: { type: "overloaded_error", message: "Overloaded" } }),
      ],
    });
    const client = createClient({ provider: fallback([claudeOn(cm), openaiOn(om)]), maxRetries: 0 });
    const seen: StreamEvent[] = [];
    let err: unknown;
    try {
      for await (const e of client.stream("Hi")) seen.push(e);
    } catch (e) {
      err = e;
    }
    expect(
      seen
        .filter((e) => e.type === "text-delta")
        .map((e) => (e as { text: string }).text)
        .join(""),
    ).toBe("Hel");
    expect(isToolloopError(err)).toBe(true);
    expect(om.requests.length).toBe(0);
  });

  it("an overloaded error event before any delta is still moved on (Claude's 200 + event: error)", async () => {
    const cm = track(await startClaudeMock({ apiKey: CLAUDE_KEY, script: [] }));
    const om = track(await startOpenAIResponsesMock({ apiKey: OPENAI_KEY, script: [{ text: "From OpenAI." }] }));
    cm.enqueue({ sse: [`event: error\ndata: ${JSON.stringify({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } })}\n\n`] });
    const client = createClient({ provider: fallback([claudeOn(cm), openaiOn(om)]), maxRetries: 0 });
    const events = await collect(client.stream("Hi"));
    expect(stepProviders(events)).toEqual(["openai"]);
    expect(om.requests.length).toBe(1);
  });

  it("a stream that ends before its first delta (cut after message_start) is moved on: nothing reached the caller", async () => {
    const cm = track(await startClaudeMock({ apiKey: CLAUDE_KEY, script: [] }));
    const om = track(await startOpenAIResponsesMock({ apiKey: OPENAI_KEY, script: [{ text: "From OpenAI." }] }));
    const start = {
      type: "message_start",
      message: {
        id: "msg_1",
        type: "message",
        role: "assistant",
        model: "claude-sonnet-4-5",
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 10, output_tokens: 1 },
      },
    };
    cm.enqueue({ sse: [`event: message_start\ndata: ${JSON.stringify(start)}\n\n`] });
    const client = createClient({ provider: fallback([claudeOn(cm), openaiOn(om)]), maxRetries: 0 });
    const events = await collect(client.stream("Hi"));
    expect(stepProviders(events)).toEqual(["openai"]);
    expect(om.requests.length).toBe(1);
    expect(historyProblems(client.history)).toEqual([]);
  });

  it("a gateway's in-band error with a numeric code (OpenRouter: {error: {code: 502}}) is an overload, moved on, as the first event and as a 200 body", async () => {
    for (const stream of [true, false]) {
      const om = track(await startOpenAIChatMock({ apiKey: OPENAI_KEY, script: [] }));
      const error = { error: { code: 502, message: "upstream provider returned 502" } };
      om.enqueue(stream ? { sse: [`data: ${JSON.stringify(error)}\n\n`] } : { status: 200, body: JSON.stringify(error) });
      const backup = scriptedProvider(["From the backup."]);
      const client = createClient({ provider: fallback([openaiCompatible({ model: "m", baseURL: om.url, apiKey: OPENAI_KEY }), backup]), maxRetries: 0 });
      const events = await collect(
        stream
          ? client.stream("Hi")
          : (async function* () {
              yield { type: "text-delta", text: await client.chat("Hi") } as StreamEvent;
            })(),
      );
      expect(
        events.some((e) => "text" in e && e.text === "From the backup."),
        stream ? "stream" : "json",
      ).toBe(true);
      expect(backup.requests).toHaveLength(1);
    }
  });

  it("a request error (400) is not moved: another provider would be no better and the caller must fix it", async () => {
    const cm = track(await startClaudeMock({ apiKey: CLAUDE_KEY, script: [] }));
    const om = track(await startOpenAIResponsesMock({ apiKey: OPENAI_KEY, script: [{ text: "unused" }] }));
    cm.enqueue({ status: 400, body: errorBody("invalid_request_error", "messages: bad") });
    const client = createClient({ provider: fallback([claudeOn(cm), openaiOn(om)]) });
    const err = await client.chat("Hi").catch((e: unknown) => e);
    expect(isToolloopError(err, "provider_error")).toBe(true);
    expect((err as ProviderError).status).toBe(400);
    expect(om.requests.length).toBe(0);
    expect(client.history.at(-1)?.role).toBe("user");
  });

  it("when every provider fails, the last one's error is thrown", async () => {
    const a = scriptedProvider([{ error: new ProviderError({ provider: "a", message: "busy", status: 503, retryable: true }) }], { name: "a" });
    const b = scriptedProvider([{ error: new ProviderError({ provider: "b", message: "also busy", status: 529 }) }], { name: "b" });
    const err = await createClient({ provider: fallback([a, b]) })
      .chat("Hi")
      .catch((e: unknown) => e);
    expect((err as ProviderError).provider).toBe("b");
    expect(a.requests.length + b.requests.length).toBe(2);
  });

  it("an aborted call is not moved to the next provider", async () => {
    const controller = new AbortController();
    const a = scriptedProvider(
      [
        (_, __) => {
          controller.abort();
          return { error: new ProviderError({ provider: "a", message: "busy", status: 503, retryable: true }) };
        },
      ],
      { name: "a" },
    );
    const b = scriptedProvider(["unused"], { name: "b" });
    const err = await createClient({ provider: fallback([a, b]) })
      .chat("Hi", { signal: controller.signal })
      .catch((e: unknown) => e);
    expect((err as Error).name).toBe("AbortError");
    expect(b.requests.length).toBe(0);
  });
});

describe("fallback() as a Provider", () => {
  it("names its providers, takes the primary's model, supports tools only if all do, and asks every provider's checkTools", () => {
    const checked: string[] = [];
    const p = (name: string, extra: Partial<Provider> = {}): Provider => ({
      name,
      model: `${name}-m`,
      generate: async () => ({ text: "", toolCalls: [], finishReason: "stop", usage: { inputTokens: 0, outputTokens: 0 } }),
      checkTools: () => void checked.push(name),
      ...extra,
    });
    const f = fallback([p("a"), p("b")]);
    expect(f.name).toBe("fallback(a,b)");
    expect(f.model).toBe("a-m");
    expect(f.supportsTools).toBe(true);
    createClient({ provider: f, tools: [getWeather] });
    expect(checked).toEqual(["a", "b"]);
    const noTools = fallback([p("a"), p("local", { supportsTools: false })]);
    expect(noTools.supportsTools).toBe(false);
    expect(() => createClient({ provider: noTools, tools: [getWeather] })).toThrow(/tools/i);
    const noSearch = fallback([p("a"), p("chat", { supportsWebSearch: false })]);
    expect(noSearch.supportsWebSearch).toBe(false);
    expect(() => createClient({ provider: noSearch, tools: [webSearch()] })).toThrow(/web search/i);
  });

  it("refuses an empty list or a non-provider with invalid_options", () => {
    for (const bad of [[], [{}], "x"] as never[]) {
      let err: unknown;
      try {
        fallback(bad);
      } catch (e) {
        err = e;
      }
      expect(isToolloopError(err, "invalid_options")).toBe(true);
    }
  });

  it("shouldFallBack: connection errors and overloads yes, request errors no", () => {
    const pe = (status: number | undefined, type?: string, retryable?: boolean) =>
      new ProviderError({ provider: "x", message: "m", ...(status ? { status } : {}), ...(type ? { type } : {}), ...(retryable ? { retryable } : {}) });
    expect([529, 503, 500, 429, 408, 501, 505, 507, 520, 522, 524].every((s) => shouldFallBack(pe(s)))).toBe(true);
    expect(shouldFallBack(new StreamError("x", "the stream ended without message_stop"))).toBe(true);
    expect(shouldFallBack(new IdleTimeoutError("x", 1000))).toBe(true);
    expect([400, 401, 403, 404, 422].map((s) => shouldFallBack(pe(s)))).toEqual([false, false, false, false, false]);
    expect(shouldFallBack(pe(undefined, "overloaded_error"))).toBe(true);
    expect(shouldFallBack(pe(undefined, "invalid_request_error"))).toBe(false);
    expect(shouldFallBack(pe(undefined, undefined, true))).toBe(true);
    expect(shouldFallBack(new Error("plain"))).toBe(false);
  });
});
