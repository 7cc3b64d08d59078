// createClient({ tracer }) with OpenTelemetry's own SDK (sdk-trace-base, in-memory exporter):
// one tree per run with invoke_agent at the root, chat {model} per model call and
// execute_tool {name} per tool call beneath it, the GenAI attributes, and error status plus a
// recorded exception on failures. src/ never imports @opentelemetry/api: the SDK's tracer fits
// the structural Tracer type, and the parent travels under OpenTelemetry's span context key.

import { type ContextManager, type Tracer as OtelTracer, context as otelContext, trace as otelTrace, ROOT_CONTEXT } from "@opentelemetry/api";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import * as v from "valibot";
import { afterEach, describe, expect, it } from "vitest";
import { claude } from "../../adapters/claude/index.js";
import { openai } from "../../adapters/openai/index.js";
import { ProviderError } from "../../src/base/errors.js";
import { compaction, createClient, fallback, suspension, tool, tracing } from "../../src/index.js";
import { scriptedProvider } from "../../src/testing.js";
import { errorBody, startClaudeMock } from "../mock/claude.js";
import { startOpenAIResponsesMock } from "../mock/openai-responses.js";

type Span = ReturnType<InMemorySpanExporter["getFinishedSpans"]>[number];
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c()));
});

function setup() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const otel: OtelTracer = provider.getTracer("toolloop-test");
  // Type check: OpenTelemetry's Tracer is a toolloop Tracer as it is.
  const tracer = tracing(otel);
  return { exporter, tracer, otel };
}
const parentOf = (s: Span) => s.parentSpanContext?.spanId;
const byName = (spans: Span[], name: string) => spans.filter((s) => s.name === name);

const getWeather = tool({
  name: "Get_Weather",
  description: "Current temperature for a city.",
  input: v.object({ city: v.string() }),
  run: async ({ city }) => {
    if (city === "Atlantis") throw new Error("no such city");
    return { city, celsius: 21 };
  },
});

describe("createClient({ tracer })", () => {
  it("one tree: invoke_agent > chat {model} per call and execute_tool {name} per tool call, GenAI attributes", async () => {
    const { exporter, tracer } = setup();
    const mock = await startClaudeMock({
      script: [
        {
          toolCalls: [
            { name: "get_weather", input: { city: "Paris" } },
            { name: "get_weather", input: { city: "Atlantis" } },
          ],
        },
        { text: "Paris is 21 °C." },
      ],
    });
    closers.push(() => mock.close());
    const client = createClient({
      provider: claude({ apiKey: "sk-ant-test-0123456789", model: "claude-sonnet-4-5", baseURL: mock.url }),
      tools: [getWeather],
      tracer,
    });
    expect(await client.chat("Weather?")).toBe("Paris is 21 °C.");
    const spans = exporter.getFinishedSpans();
    expect(spans.map((s) => s.name).sort()).toEqual([
      "chat claude-sonnet-4-5",
      "chat claude-sonnet-4-5",
      "execute_tool get_weather",
      "execute_tool get_weather",
      "invoke_agent",
    ]);
    const [root] = byName(spans, "invoke_agent");
    expect(parentOf(root!)).toBeUndefined();
    expect(new Set(spans.map((s) => s.spanContext().traceId)).size).toBe(1);
    for (const s of spans) if (s !== root) expect(parentOf(s)).toBe(root!.spanContext().spanId);
    expect(root!.attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.provider.name": "anthropic",
      "gen_ai.request.model": "claude-sonnet-4-5",
    });
    const usage = client.lastRun!.usage;
    expect(root!.attributes["gen_ai.usage.input_tokens"]).toBe(usage.inputTokens);
    expect(root!.attributes["gen_ai.usage.output_tokens"]).toBe(usage.outputTokens);

    const chats = byName(spans, "chat claude-sonnet-4-5");
    expect(chats.map((s) => s.kind)).toEqual([2, 2]); // SpanKind.CLIENT
    expect(chats.map((s) => s.attributes["gen_ai.response.finish_reasons"])).toEqual([["tool-calls"], ["stop"]]);
    for (const s of chats) {
      expect(s.attributes).toMatchObject({ "gen_ai.operation.name": "chat", "gen_ai.provider.name": "anthropic", "gen_ai.request.model": "claude-sonnet-4-5" });
      expect(s.attributes["gen_ai.usage.input_tokens"]).toBeGreaterThan(0);
      expect(s.attributes["gen_ai.usage.output_tokens"]).toBeGreaterThan(0);
    }
    const tools = byName(spans, "execute_tool get_weather");
    const calls = client.history.flatMap((m) => (m.role === "assistant" ? (m.toolCalls ?? []) : []));
    expect(tools.map((s) => s.attributes["gen_ai.tool.call.id"]).sort()).toEqual(calls.map((c) => c.id).sort());
    for (const s of tools) expect(s.attributes).toMatchObject({ "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_weather" });
    // The failing call: error status and the exception recorded; the run went on.
    const failed = tools.filter((s) => s.status.code === 2);
    expect(failed).toHaveLength(1);
    expect(failed[0]!.status.message).toBe("no such city");
    expect(failed[0]!.events.map((e) => e.name)).toEqual(["exception"]);
    expect(root!.status.code).not.toBe(2);
  });

  it("a failed model call: chat and invoke_agent get error status, the exception and error.type", async () => {
    const { exporter, tracer } = setup();
    const provider = scriptedProvider([{ error: new ProviderError({ provider: "scripted", message: "bad request", status: 400 }) }]);
    const client = createClient({ provider, tracer });
    await expect(client.chat("Hi")).rejects.toThrow(/bad request/);
    const spans = exporter.getFinishedSpans();
    expect(spans.map((s) => s.name).sort()).toEqual(["chat scripted", "invoke_agent"]);
    for (const s of spans) {
      expect(s.status.code).toBe(2);
      expect(s.events.map((e) => e.name)).toEqual(["exception"]);
      expect(s.attributes["error.type"]).toBe("provider_error");
    }
  });

  it("nests under the caller's active span (a context manager's), and each run is its own invoke_agent", async () => {
    const { exporter, tracer, otel } = setup();
    // A minimal context manager (what NodeSDK's AsyncLocalStorage one does for one async flow).
    let current = ROOT_CONTEXT;
    const manager: ContextManager = {
      active: () => current,
      with(ctx, fn, thisArg, ...args) {
        const prev = current;
        current = ctx;
        const r = fn.call(thisArg, ...args) as unknown;
        if (r instanceof Promise) return r.finally(() => (current = prev)) as never;
        current = prev;
        return r as never;
      },
      bind: (_ctx, target) => target,
      enable() {
        return this;
      },
      disable() {
        current = ROOT_CONTEXT;
        return this;
      },
    };
    otelContext.setGlobalContextManager(manager);
    closers.push(async () => void otelContext.disable());
    const client = createClient({ provider: scriptedProvider(["one", "two"]), tracer });
    const outer = otel.startSpan("POST /chat");
    await otelContext.with(otelTrace.setSpan(otelContext.active(), outer), async () => {
      await client.chat("a");
      await client.chat("b");
    });
    outer.end();
    const spans = exporter.getFinishedSpans();
    const agents = byName(spans, "invoke_agent");
    expect(agents).toHaveLength(2);
    expect(agents.map(parentOf)).toEqual([outer.spanContext().spanId, outer.spanContext().spanId]);
    const chats = byName(spans, "chat scripted");
    expect(chats.map(parentOf)).toEqual(agents.map((a) => a.spanContext().spanId));
    expect(new Set(spans.map((s) => s.spanContext().traceId)).size).toBe(1);
  });

  it("a resumed run is one invoke_agent span, holding the approved tool's execute_tool span", async () => {
    const { exporter, tracer } = setup();
    const pay = tool({ name: "pay", description: "Pays.", input: v.object({ eur: v.number() }), needsApproval: true, run: async ({ eur }) => `paid ${eur}` });
    const client = createClient({
      provider: scriptedProvider([{ toolCalls: [{ name: "pay", arguments: { eur: 40 } }] }, "Paid."]),
      tools: [pay],
      tracer,
      suspension: suspension({ unsigned: true }),
    });
    const first = await client.run("Pay 40 EUR");
    expect(first.status).toBe("suspended");
    const second = await client.resume([{ callId: first.pending[0]!.callId, approved: true }]);
    expect(second.text).toBe("Paid.");
    const spans = exporter.getFinishedSpans();
    const agents = byName(spans, "invoke_agent");
    expect(agents).toHaveLength(2);
    const [tool_] = byName(spans, "execute_tool pay");
    expect(parentOf(tool_!)).toBe(agents[1]!.spanContext().spanId);
  });

  it("a handler that suspends at requestInput ends its execute_tool span (suspended, no error); its re-run on resume gets one of its own", async () => {
    const { exporter, tracer } = setup();
    const move = tool({
      name: "move",
      description: "Moves money.",
      input: v.object({}),
      run: async (_, ctx) => `from ${String(await ctx.requestInput!({ message: "Which account?", schema: v.picklist(["savings", "checking"]) }))}`,
    });
    const client = createClient({
      provider: scriptedProvider([{ toolCalls: [{ name: "move", arguments: {} }] }, "Moved."]),
      tools: [move],
      tracer,
      suspension: suspension({ unsigned: true }),
    });
    const first = await client.run("Move it");
    expect(first.status).toBe("suspended");
    const asked = byName(exporter.getFinishedSpans(), "execute_tool move");
    expect(asked).toHaveLength(1);
    expect(asked[0]!.attributes["toolloop.tool.suspended"]).toBe(true);
    expect(asked[0]!.status.code).not.toBe(2);
    expect(await client.resume([{ callId: first.pending[0]!.callId, answer: "savings" }])).toMatchObject({ status: "done", text: "Moved." });
    const spans = byName(exporter.getFinishedSpans(), "execute_tool move");
    expect(spans).toHaveLength(2);
    expect(spans[1]!.attributes["toolloop.tool.suspended"]).toBeUndefined();
    expect(spans[1]!.status.code).not.toBe(2);
  });

  it("a tool that times out ends its execute_tool span with the timeout, though its handler never settles", async () => {
    const { exporter, tracer } = setup();
    const hang = { name: "hang", description: "Never answers.", parameters: { type: "object" }, timeout: 20, call: () => new Promise<string>(() => {}) };
    const client = createClient({ provider: scriptedProvider([{ toolCalls: [{ name: "hang", arguments: {} }] }, "ok"]), tools: [hang], tracer });
    expect(await client.chat("go")).toBe("ok");
    const [span] = byName(exporter.getFinishedSpans(), "execute_tool hang");
    expect(span!.status.code).toBe(2);
    expect(span!.attributes["error.type"]).toBe("tool_timeout");
  });

  it("with a tracer, approvals still validate: needsApproval gets the schema's output and a bad edited input is refused", async () => {
    const { tracer } = setup();
    const seen: unknown[] = [];
    const pay = tool({
      name: "pay",
      description: "Pays.",
      input: v.object({ amount: v.pipe(v.string(), v.transform(Number)) }),
      needsApproval: (input) => (seen.push(input), true),
      run: async ({ amount }) => `paid ${amount}`,
    });
    const client = createClient({
      provider: scriptedProvider([{ toolCalls: [{ name: "pay", arguments: { amount: "40" }, id: "p" }] }, "done"]),
      tools: [pay],
      tracer,
      suspension: suspension({ unsigned: true }),
    });
    expect((await client.run("go")).status).toBe("suspended");
    expect(seen).toEqual([{ amount: 40 }]);
    const before = client.history;
    await expect(client.resume([{ callId: "p", approved: true, input: { amount: 5 } }])).rejects.toMatchObject({ code: "invalid_decision" });
    expect(client.history).toEqual(before);
    expect(await client.resume([{ callId: "p", approved: true, input: { amount: "5" } }])).toMatchObject({ status: "done" });
  });

  it("with fallback() the chat span names the provider that answered", async () => {
    const { exporter, tracer } = setup();
    const cm = await startClaudeMock({ script: [] });
    const om = await startOpenAIResponsesMock({ script: [{ text: "From OpenAI." }] });
    closers.push(
      () => cm.close(),
      () => om.close(),
    );
    cm.enqueue({ status: 529, body: errorBody("overloaded_error", "Overloaded") });
    const provider = fallback([
      claude({ apiKey: "sk-ant-test-0123456789", model: "claude-sonnet-4-5", baseURL: cm.url }),
      openai({ apiKey: "sk-test-openai-0123456789", model: "gpt-5", baseURL: om.url }),
    ]);
    const client = createClient({ provider, tracer, maxRetries: 0 });
    expect(await client.chat("Hi")).toBe("From OpenAI.");
    const [chat] = exporter.getFinishedSpans().filter((s) => s.name.startsWith("chat "));
    expect(chat!.attributes["gen_ai.provider.name"]).toBe("openai");
  });

  it("the compaction summary call is a chat span of the same run", async () => {
    const { exporter, tracer } = setup();
    const provider = scriptedProvider([
      { toolCalls: [{ name: "get_weather", arguments: { city: "Paris" } }], usage: { inputTokens: 10 } },
      { toolCalls: [{ name: "get_weather", arguments: { city: "Rome" } }], usage: { inputTokens: 5000 } },
      "summary",
      "done",
    ]);
    const client = createClient({ provider, tracer, tools: [getWeather], compaction: compaction({ maxInputTokens: 1000, keepRecent: 1 }) });
    await client.chat("Weather?");
    const spans = exporter.getFinishedSpans();
    expect(byName(spans, "chat scripted")).toHaveLength(4);
    const [root] = byName(spans, "invoke_agent");
    for (const s of spans) if (s !== root) expect(parentOf(s)).toBe(root!.spanContext().spanId);
  });
});
