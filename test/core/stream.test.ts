import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { createClient, type StreamEvent, tool } from "../../src/index.js";
import { scriptedProvider } from "../../src/testing.js";
import { historyProblems, settle } from "./helpers.js";

const weather = tool({
  name: "weather",
  description: "A test tool.",
  input: v.object({ city: v.string() }),
  run: ({ city }) => ({ city, celsius: 21 }),
});

/** The event types with runs of the same type collapsed: ["text-delta", "tool-call", ...]. */
const shape = (events: StreamEvent[]) => events.map((e) => e.type).filter((t, i, all) => t !== all[i - 1]);

async function collect(iterable: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const out: StreamEvent[] = [];
  for await (const e of iterable) out.push(e);
  return out;
}

describe("stream()", () => {
  it("yields text-delta*, tool-call, tool-result, step-finish per step, and finish last", async () => {
    const provider = scriptedProvider([
      { text: "Looking it up for you", toolCalls: [{ name: "weather", arguments: { city: "Paris" }, id: "w1" }], usage: { inputTokens: 7, outputTokens: 3 } },
      { text: "It is 21 degrees in Paris today.", usage: { inputTokens: 11, outputTokens: 9 } },
    ]);
    const client = createClient({ provider, tools: [weather] });
    const events = await collect(client.stream("Weather?"));
    expect(shape(events)).toEqual(["text-delta", "tool-call-delta", "tool-call", "tool-result", "step-finish", "text-delta", "step-finish", "finish"]);
    const texts = events.filter((e): e is Extract<StreamEvent, { type: "text-delta" }> => e.type === "text-delta").map((e) => e.text);
    expect(texts.length).toBeGreaterThan(2);
    expect(texts.join("")).toBe("Looking it up for youIt is 21 degrees in Paris today.");
    const argsDeltas = events.filter((e) => e.type === "tool-call-delta").map((e) => (e as { argsDelta: string }).argsDelta);
    expect(argsDeltas.join("")).toBe('{"city":"Paris"}');
    expect(events.find((e) => e.type === "tool-call")).toMatchObject({ callId: "w1", name: "weather", input: { city: "Paris" } });
    expect(events.find((e) => e.type === "tool-result")).toMatchObject({
      callId: "w1",
      name: "weather",
      output: '{"city":"Paris","celsius":21}',
      isError: false,
    });
    // step-finish is the StepResult onStepFinish gets: the step's text, calls and results too
    expect(events.filter((e) => e.type === "step-finish")).toEqual([
      {
        type: "step-finish",
        step: 1,
        text: "Looking it up for you",
        toolCalls: [{ id: "w1", name: "weather", arguments: '{"city":"Paris"}' }],
        toolResults: [{ callId: "w1", name: "weather", output: '{"city":"Paris","celsius":21}', isError: false }],
        finishReason: "tool-calls",
        usage: { inputTokens: 7, outputTokens: 3 },
      },
      {
        type: "step-finish",
        step: 2,
        text: "It is 21 degrees in Paris today.",
        toolCalls: [],
        toolResults: [],
        finishReason: "stop",
        usage: { inputTokens: 11, outputTokens: 9 },
      },
    ]);
    expect(events.at(-1)).toMatchObject({
      type: "finish",
      text: "It is 21 degrees in Paris today.",
      steps: 2,
      usage: { inputTokens: 18, outputTokens: 12 },
    });
    expect(events.filter((e) => e.type === "finish")).toHaveLength(1);
    expect(provider.requests.every((r) => r.streamed)).toBe(true);
    expect(client.lastRun).toMatchObject({ text: "It is 21 degrees in Paris today.", steps: 2 });
  });

  it("with several calls in a step, every tool-call comes before the results, and step-finish after all of them", async () => {
    const provider = scriptedProvider([
      {
        toolCalls: [
          { name: "weather", arguments: { city: "A" } },
          { name: "weather", arguments: { city: "B" } },
        ],
      },
      "done",
    ]);
    const events = await collect(createClient({ provider, tools: [weather], parallelTools: true }).stream("x"));
    const types = events.map((e) => e.type).filter((t) => t !== "text-delta" && t !== "tool-call-delta");
    expect(types).toEqual(["tool-call", "tool-call", "tool-result", "tool-result", "step-finish", "step-finish", "finish"]);
  });

  it("chat() does not ask the provider to stream", async () => {
    const provider = scriptedProvider(["hi"]);
    await createClient({ provider }).chat("x");
    expect(provider.requests[0]!.streamed).toBe(false);
  });

  it("does nothing until iterated", async () => {
    const provider = scriptedProvider(["hi"]);
    const client = createClient({ provider });
    const iterable = client.stream("x");
    await new Promise((r) => setTimeout(r, 0));
    expect(provider.requests).toHaveLength(0);
    expect(client.history).toEqual([]);
    expect(shape(await collect(iterable))).toEqual(["text-delta", "step-finish", "finish"]);
  });

  it("a provider error ends the iteration with that error, history valid", async () => {
    const boom = new Error("provider exploded");
    const provider = scriptedProvider([{ toolCalls: [{ name: "weather", arguments: { city: "A" } }] }, { error: boom }]);
    const client = createClient({ provider, tools: [weather] });
    const seen: string[] = [];
    const r = await settle(
      (async () => {
        for await (const e of client.stream("x")) seen.push(e.type);
      })(),
    );
    expect(r).toEqual({ ok: false, error: boom });
    expect(seen).not.toContain("finish");
    expect(seen).toContain("tool-result");
    expect(historyProblems(client.history)).toEqual([]);
  });

  it("MaxStepsError ends the iteration; stream() without a prompt continues the history", async () => {
    const provider = scriptedProvider([{ toolCalls: [{ name: "weather", arguments: { city: "A" } }] }], { onExhausted: "repeat-last" });
    const client = createClient({ provider, tools: [weather], maxSteps: 2, history: [{ role: "user", content: "loop" }] });
    const r = await settle(collect(client.stream()));
    expect((r as { error: { code: string } }).error.code).toBe("max_steps");
    expect(provider.requests[0]!.messages).toEqual([{ role: "user", content: "loop" }]);
    expect(historyProblems(client.history)).toEqual([]);
  });
});
