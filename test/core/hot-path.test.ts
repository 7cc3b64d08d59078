// Shapes the loop's hot paths must keep while they are made cheaper (issue 24): a handler's
// context, and the step-finish event built from a provider's response.
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import type { ModelResponse } from "../../src/conversation/provider.js";
import { createClient, type Provider, type StepResult, type ToolContext, tool } from "../../src/index.js";
import { stepFinish } from "../../src/loop/step-finish.js";

describe("a handler's context", () => {
  it("has signal, callId and logger as own enumerable keys, in that order; a spread copies the signal", async () => {
    let ctx: ToolContext | undefined;
    const run = (_input: unknown, c: ToolContext) => {
      ctx = c;
      return "ok";
    };
    const t = tool({ name: "probe", description: "A test tool.", input: v.object({}), run });
    const provider: Provider = {
      name: "p",
      generate: async (r) =>
        r.messages.length === 1
          ? { text: "", toolCalls: [{ id: "c1", name: "probe", arguments: "{}" }], finishReason: "tool-calls", usage: { inputTokens: 0, outputTokens: 0 } }
          : { text: "done", toolCalls: [], finishReason: "stop", usage: { inputTokens: 0, outputTokens: 0 } },
    };
    await createClient({ provider, tools: [t] }).chat("go");
    expect(Object.keys(ctx!)).toEqual(["signal", "callId", "logger"]);
    expect(ctx!.callId).toBe("c1");
    const copy = { ...ctx! };
    expect(copy.signal).toBeInstanceOf(AbortSignal);
    expect(copy.signal).toBe(ctx!.signal); // made once, on first read
    expect(ctx!.signal.aborted).toBe(false);
  });
});

describe("stepFinish", () => {
  /** What 0.2 built: the response's rest spread, then the event's own fields. */
  const before = (response: ModelResponse, step: number, toolResults: StepResult["toolResults"]) => {
    const { providerData: _p, toolCalls: _c, ...said } = response;
    return { ...said, type: "step-finish", step, toolCalls: [], toolResults };
  };
  const base: ModelResponse = {
    text: "hi",
    toolCalls: [{ id: "a", name: "t", arguments: "{}" }],
    finishReason: "stop",
    usage: { inputTokens: 1, outputTokens: 2 },
    providerData: { provider: "x", value: 1 },
  };

  it.each([
    ["known fields", base],
    ["a fallback's provider", { ...base, provider: "other" }],
    ["fields in another order", { usage: base.usage, finishReason: "stop", text: "hi", toolCalls: [] } as ModelResponse],
    ["a custom provider's own field", { ...base, latencyMs: 12 } as ModelResponse],
    ["own fields that name the event's", { type: "mine", step: 99, toolResults: "x", ...base } as unknown as ModelResponse],
  ])("equals the spread it replaces, keys in the same order (%s)", (_name, response) => {
    const got = stepFinish(response, 3, [], []);
    const want = before(response, 3, []);
    expect(got).toEqual(want);
    expect(Object.keys(got)).toEqual(Object.keys(want));
  });
});

describe("the signal a request's fetch gets", () => {
  /** A Chat Completions server answering one tool call, then text; records each fetch's signal. */
  function server() {
    const signals: (AbortSignal | undefined)[] = [];
    const sse = (chunks: unknown[]) =>
      new Response(chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join("") + "data: [DONE]\n\n", { headers: { "content-type": "text/event-stream" } });
    const json = (body: unknown) => new Response(JSON.stringify(body), { headers: { "content-type": "application/json" } });
    const fetch = async (_url: string | URL | Request, init?: RequestInit) => {
      signals.push(init?.signal ?? undefined);
      const first = signals.length % 2 === 1;
      const stream = String(init?.body).includes('"stream":true');
      const message = first
        ? { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "probe", arguments: "{}" } }] }
        : { role: "assistant", content: "done" };
      if (!stream) return json({ choices: [{ index: 0, message, finish_reason: first ? "tool_calls" : "stop" }] });
      const delta = first ? { tool_calls: [{ index: 0, ...message.tool_calls![0] }] } : { content: "done" };
      return sse([{ choices: [{ index: 0, delta, finish_reason: first ? "tool_calls" : "stop" }] }]);
    };
    return { signals, fetch };
  }
  const probe = tool({ name: "probe", description: "A test tool.", input: v.object({}), run: () => "ok" });

  it("stream() hands every request the run's own signal; a caller's signal is forwarded through one per request", async () => {
    const { openaiCompatible } = await import("../../adapters/openai/index.js");
    const s = server();
    const client = createClient({ provider: openaiCompatible({ baseURL: "http://127.0.0.1:1/v1", model: "m", fetch: s.fetch }), tools: [probe] });
    for await (const _ of client.stream("go"));
    expect(s.signals).toHaveLength(2);
    expect(s.signals[0]).toBeInstanceOf(AbortSignal);
    expect(s.signals[1]).toBe(s.signals[0]);

    const mine = new AbortController();
    await client.chat("again", { signal: mine.signal });
    expect(s.signals).toHaveLength(4);
    expect(s.signals[2]).not.toBe(mine.signal);
    expect(s.signals[3]).not.toBe(s.signals[2]);
  });
});
