import * as v from "valibot";
import { describe, expect, it, vi } from "vitest";
import { InvalidOptionsError } from "../../src/base/errors.js";
import {
  type AssistantMessage,
  createClient,
  isToolloopError,
  type Message,
  type Provider,
  type StreamEvent,
  type ToolMessage,
  tool,
} from "../../src/index.js";
import { scriptedProvider } from "../../src/testing.js";
import { historyProblems, settle } from "./helpers.js";

const ping = (run = vi.fn(() => "pong")) => ({ run, tool: tool({ name: "ping", description: "A test tool.", input: v.object({}), run }) });
const forever = () => scriptedProvider([{ toolCalls: [{ name: "ping" }] }], { onExhausted: "repeat-last" });

describe("the ReAct loop", () => {
  it("calls the model, runs the tools, feeds back the results, until a final text", async () => {
    const { run, tool: t } = ping();
    const provider = scriptedProvider([
      { text: "let me check", toolCalls: [{ name: "ping", id: "a" }] },
      {
        toolCalls: [
          { name: "ping", id: "b" },
          { name: "ping", id: "c" },
        ],
      },
      "all done",
    ]);
    const client = createClient({ provider, tools: [t], systemPrompt: "be brief" });
    expect(await client.chat("hello")).toBe("all done");
    expect(run).toHaveBeenCalledTimes(3);
    expect(provider.requests).toHaveLength(3);
    expect(provider.requests.every((r) => r.system === "be brief" && r.toolChoice === "auto")).toBe(true);
    expect(client.history.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant", "tool", "assistant"]);
    expect((client.history[1] as AssistantMessage).content).toBe("let me check");
    expect(provider.requests[2]!.messages).toEqual(client.history.slice(0, 5));
    expect(client.lastRun).toMatchObject({ text: "all done", steps: 3, toolCalls: 3, toolFailures: 0, usage: { inputTokens: 30, outputTokens: 15 } });
  });

  it("chat() without a prompt continues the history", async () => {
    const provider = scriptedProvider(["continued"]);
    const client = createClient({ provider, history: [{ role: "user", content: "earlier" }] });
    expect(await client.chat()).toBe("continued");
    expect(provider.requests[0]!.messages).toEqual([{ role: "user", content: "earlier" }]);
  });

  it("a provider error rejects the call, keeps the history valid, and the next call works", async () => {
    const { ProviderError } = await import("../../src/index.js");
    const { tool: t } = ping();
    const failure = new ProviderError({ provider: "scripted", status: 529, message: "overloaded", retryable: true });
    const provider = scriptedProvider([{ toolCalls: [{ name: "ping", id: "a" }] }, { error: failure }, "recovered"]);
    const client = createClient({ provider, tools: [t] });
    expect(await settle(client.chat("go"))).toEqual({ ok: false, error: failure });
    expect(historyProblems(client.history)).toEqual([]);
    expect(client.history.map((m) => m.role)).toEqual(["user", "assistant", "tool"]);
    expect(await client.chat("again")).toBe("recovered");
  });
});

describe("maxSteps", () => {
  it("throws MaxStepsError after the default 20 model calls, with every tool call answered", async () => {
    const { run, tool: t } = ping();
    const provider = forever();
    const client = createClient({ provider, tools: [t] });
    const r = await settle(client.chat("loop forever"));
    expect(r.ok).toBe(false);
    const err = (r as { error: { code: string; steps: number } }).error;
    expect(isToolloopError(err, "max_steps")).toBe(true);
    expect(err.steps).toBe(20);
    expect(provider.requests).toHaveLength(20);
    // the calls of the 20th step are answered but not run: no model call would read them
    expect(run).toHaveBeenCalledTimes(19);
    const h = client.history;
    expect(historyProblems(h)).toEqual([]);
    expect(JSON.parse((h.at(-1) as ToolMessage).results[0]!.output)).toEqual({ error: expect.stringContaining("maxSteps") });
    expect(h.filter((m) => m.role === "assistant")).toHaveLength(20);
  });

  it("counts model calls against maxSteps", async () => {
    for (const maxSteps of [1, 2, 5]) {
      const provider = forever();
      const client = createClient({ provider, tools: [ping().tool], maxSteps });
      const r = await settle(client.chat("go"));
      expect((r as { error: { code: string } }).error.code).toBe("max_steps");
      expect(provider.requests).toHaveLength(maxSteps);
      expect(historyProblems(client.history)).toEqual([]);
    }
  });

  it("in a stream, the not-run calls of the step at maxSteps get their tool-result events (cancelled) before step-finish", async () => {
    const client = createClient({ provider: forever(), tools: [ping().tool], maxSteps: 1 });
    const events: StreamEvent[] = [];
    const r = await settle(
      (async () => {
        for await (const e of client.stream("go")) events.push(e);
      })(),
    );
    expect(r).toMatchObject({ ok: false, error: { code: "max_steps" } });
    const types = events.map((e) => e.type).filter((t) => t !== "tool-call-delta" && t !== "text-delta");
    expect(types).toEqual(["tool-call", "tool-result", "step-finish"]);
    const result = events.find((e) => e.type === "tool-result") as Extract<StreamEvent, { type: "tool-result" }>;
    const call = events.find((e) => e.type === "tool-call") as Extract<StreamEvent, { type: "tool-call" }>;
    expect(result).toMatchObject({ callId: call.callId, isError: true, outcome: "cancelled" });
  });

  it("an answer on exactly the last allowed step is not an error", async () => {
    const provider = scriptedProvider([{ toolCalls: [{ name: "ping" }] }, { toolCalls: [{ name: "ping" }] }, "made it"]);
    const client = createClient({ provider, tools: [ping().tool], maxSteps: 3 });
    expect(await client.chat("go")).toBe("made it");
  });

  it("the next chat after MaxStepsError starts a fresh budget and sends a valid history", async () => {
    let calls = 0;
    const provider = scriptedProvider([() => (++calls <= 2 ? { toolCalls: [{ name: "ping" }] } : "finally")], { onExhausted: "repeat-last" });
    const client = createClient({ provider, tools: [ping().tool], maxSteps: 2 });
    expect((await settle(client.chat("go"))).ok).toBe(false);
    expect(await client.chat("again")).toBe("finally");
    expect(historyProblems(provider.requests.at(-1)!.messages)).toEqual([]);
  });

  it("finalAnswerOnMaxSteps makes one last call with toolChoice none and resolves with its text", async () => {
    const provider = scriptedProvider([
      { toolCalls: [{ name: "ping" }] },
      { toolCalls: [{ name: "ping" }] },
      { toolCalls: [{ name: "ping" }] },
      // a model that calls tools despite toolChoice "none": the calls are dropped
      { text: "best effort answer", toolCalls: [{ name: "ping" }] },
    ]);
    const client = createClient({ provider, tools: [ping().tool], maxSteps: 3, finalAnswerOnMaxSteps: true });
    expect(await client.chat("go")).toBe("best effort answer");
    expect(provider.requests.map((r) => r.toolChoice)).toEqual(["auto", "auto", "auto", "none"]);
    const h = client.history;
    expect(historyProblems(h)).toEqual([]);
    expect(h.at(-1)).toEqual({ role: "assistant", content: "best effort answer" });
    expect(client.lastRun!.steps).toBe(4);
  });

  it("rejects a maxSteps that is not a positive integer", () => {
    for (const bad of [0, -1, 1.5]) expect(() => createClient({ provider: forever(), maxSteps: bad })).toThrow(InvalidOptionsError);
  });
});

describe("request options", () => {
  it("passes maxRetries and idleTimeout overrides to the provider only when set", async () => {
    const provider = scriptedProvider(["a", "b"]);
    await createClient({ provider, maxRetries: 0, idleTimeout: 1234 }).chat("x");
    await createClient({ provider }).chat("y");
    expect(provider.requests[0]).toMatchObject({ maxRetries: 0, idleTimeout: 1234 });
    expect(provider.requests[1]).not.toHaveProperty("maxRetries");
    expect(provider.requests[1]).not.toHaveProperty("idleTimeout");
    expect(provider.requests[1]).not.toHaveProperty("system");
  });

  it("keeps a response's providerData on the assistant message and sends it back", async () => {
    const sent: Message[][] = [];
    const provider: Provider = {
      name: "scripted",
      async generate(req) {
        sent.push(structuredClone([...req.messages]));
        return sent.length === 1
          ? {
              text: "",
              toolCalls: [{ id: "t1", name: "ping", arguments: "" }],
              finishReason: "tool-calls",
              usage: { inputTokens: 1, outputTokens: 1 },
              providerData: { provider: "scripted", value: { sig: "abc" } },
            }
          : { text: "ok", toolCalls: [], finishReason: "stop", usage: { inputTokens: 1, outputTokens: 1 } };
      },
    };
    const client = createClient({ provider, tools: [ping().tool] });
    await client.chat("go");
    expect(client.history[1]).toEqual({
      role: "assistant",
      content: "",
      toolCalls: [{ id: "t1", name: "ping", arguments: "" }],
      providerData: { provider: "scripted", value: { sig: "abc" } },
    });
    expect(sent[1]![1]).toEqual(client.history[1]);
  });
});
