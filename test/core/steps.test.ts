// Step control and observation over the scripted provider: prepareStep, onStepFinish (the
// same in chat, ask and stream), stopWhen and its built-in conditions, per-call options.
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { InvalidOptionsError } from "../../src/base/errors.js";
import {
  costExceeds,
  createClient,
  hasToolCall,
  type ModelResponse,
  type Provider,
  type StepResult,
  type StopCondition,
  type StreamEvent,
  stepCountIs,
  tokensExceed,
  tool,
  webSearch,
} from "../../src/index.js";
import { type ScriptedTurn, scriptedProvider } from "../../src/testing.js";
import { historyProblems } from "./helpers.js";

const echo = tool({ name: "echo", description: "Echoes.", input: v.object({ s: v.string() }), run: async ({ s }) => s });
const other = tool({ name: "other", description: "Other.", input: v.object({}), run: async () => "o" });
const callEcho = (s: string): ScriptedTurn => ({ toolCalls: [{ name: "echo", arguments: { s } }], usage: { inputTokens: 100, outputTokens: 10 } });

describe("steps", () => {
  it("onStepFinish gets each step (numbered from 1, its own usage) in chat, ask and stream alike", async () => {
    for (const mode of ["chat", "ask", "stream"] as const) {
      const seen: StepResult[] = [];
      const provider = scriptedProvider([callEcho("a"), mode === "ask" ? '{"ok":true}' : "done"]);
      const client = createClient({ provider, tools: [echo], onStepFinish: (s) => void seen.push(s) });
      if (mode === "chat") await client.chat("x");
      else if (mode === "ask") await client.ask("x", v.object({ ok: v.boolean() }));
      else for await (const _ of client.stream("x"));
      expect(
        seen.map((s) => s.step),
        mode,
      ).toEqual([1, 2]);
      expect(seen[0]).toMatchObject({ text: "", finishReason: "tool-calls", usage: { inputTokens: 100, outputTokens: 10 } });
      expect(seen[0]!.toolCalls.map((c) => c.name)).toEqual(["echo"]);
      expect(seen[0]!.toolResults.map((r) => r.output)).toEqual(["a"]);
      expect(seen[1]).toMatchObject({ finishReason: "stop", toolCalls: [], toolResults: [] });
    }
  });

  it("a custom provider's own response fields cannot pass for step-finish's type or step", async () => {
    const answers = [
      { text: "", toolCalls: [{ id: "c1", name: "echo", arguments: '{"s":"a"}' }], finishReason: "tool-calls" as const },
      { text: "done", toolCalls: [], finishReason: "stop" as const },
    ];
    let n = 0;
    const provider: Provider = {
      name: "custom",
      // A response that carries its vendor's own `type` and a `step` of its own.
      generate: async () =>
        ({ ...answers[n++]!, usage: { inputTokens: 1, outputTokens: 1 }, type: "message", step: 99, raw: true }) as unknown as ModelResponse,
    };
    const seen: StepResult[] = [];
    const client = createClient({ provider, tools: [echo], onStepFinish: (s) => void seen.push(s) });
    const events: StreamEvent[] = [];
    for await (const e of client.stream("x")) events.push(e);
    expect(seen.map((s) => [s.type, s.step])).toEqual([
      ["step-finish", 1],
      ["step-finish", 2],
    ]);
    expect(events.map((e) => e.type)).toEqual(["tool-call", "tool-result", "step-finish", "step-finish", "finish"]);
    expect(events.filter((e) => e.type === "step-finish").map((e) => (e as StepResult).step)).toEqual([1, 2]);
  });

  it("prepareStep (async) sees the step, a copy of history and the usage so far, and sets tools / toolChoice / system", async () => {
    const states: { step: number; messages: number; input: number }[] = [];
    const provider = scriptedProvider([callEcho("a"), "done"]);
    const client = createClient({
      provider,
      tools: [echo, other],
      systemPrompt: "base",
      prepareStep: async ({ step, history, usage }) => {
        states.push({ step, messages: history.length, input: usage.inputTokens });
        history.length = 0; // a copy: the run's history is untouched
        return step === 2 ? { tools: [other], toolChoice: { name: "Other" }, system: "second" } : undefined;
      },
    });
    expect(await client.chat("x")).toBe("done");
    expect(states).toEqual([
      { step: 1, messages: 1, input: 0 },
      { step: 2, messages: 3, input: 100 },
    ]);
    const [r1, r2] = provider.requests;
    expect(r1!.tools.map((t) => t.name)).toEqual(["echo", "other"]);
    expect(r1!.system).toBe("base");
    expect(r1!.toolChoice).toBe("auto");
    expect(r2!.tools.map((t) => t.name)).toEqual(["other"]);
    expect(r2!.toolChoice).toEqual({ name: "other" });
    expect(r2!.system).toBe("second");
    expect(client.history).toHaveLength(4);
  });

  it("prepareStep's tools get the checks setTools makes: without suspension() a tool that needs approval is refused before the step's request, and never runs", async () => {
    let ran = 0;
    const pay = tool({ name: "pay", description: "Pays.", input: v.object({}), needsApproval: true, run: async () => String(++ran) });
    const provider = scriptedProvider([callEcho("a"), { toolCalls: [{ name: "pay", arguments: {} }] }, "done"]);
    const client = createClient({ provider, tools: [echo], prepareStep: ({ step }) => (step === 2 ? { tools: [pay] } : undefined) });
    await expect(client.chat("x")).rejects.toMatchObject({ code: "invalid_tool", message: expect.stringContaining("suspension()") });
    expect(ran).toBe(0);
    expect(provider.requests).toHaveLength(1);
    // the history is valid for the next call: the first step's call is answered
    expect(client.history.map((m) => m.role)).toEqual(["user", "assistant", "tool"]);
  });

  it("prepareStep's tools are checked against the provider like setTools' (a web search marker where there is none)", async () => {
    const provider = { ...scriptedProvider(["never"]), supportsWebSearch: false };
    const client = createClient({ provider, prepareStep: () => ({ tools: [webSearch()] }) });
    await expect(client.chat("x")).rejects.toMatchObject({ code: "invalid_tool", message: expect.stringContaining("webSearch()") });
    expect(provider.requests).toHaveLength(0);
  });

  const stops: [string, StopCondition | StopCondition[], number][] = [
    ["stepCountIs(2)", stepCountIs(2), 2],
    ["hasToolCall('echo')", hasToolCall("ECHO"), 1],
    ["tokensExceed(200)", tokensExceed(200), 2],
    ["costExceeds(0.001) with usage.cost", costExceeds(0.001), 3],
    ["a custom condition", ({ lastStep }) => lastStep.toolResults.some((r) => r.output === "b"), 2],
    ["any of several", [stepCountIs(9), ({ steps }) => steps === 1], 1],
  ];
  for (const [name, cond, toolSteps] of stops) {
    it(`stopWhen ${name}: after ${toolSteps} tool step(s), one tools-off call gives the answer`, async () => {
      const turns: ScriptedTurn[] = ["a", "b", "c", "d", "e"].map(callEcho);
      const provider = scriptedProvider([...turns.slice(0, toolSteps), "final", ...turns.slice(toolSteps)]);
      // usage.cost is the pricing engineer's field; a provider that reports it stands in here
      const priced = {
        ...provider,
        generate: async (r: Parameters<typeof provider.generate>[0]) => ({
          ...(await provider.generate(r)),
          usage: { inputTokens: 100, outputTokens: 10, cost: 0.0004 },
        }),
      };
      const client = createClient({ provider: priced, tools: [echo], stopWhen: cond });
      const r = await client.run("x");
      expect(r.text).toBe("final");
      expect(r.steps).toBe(toolSteps + 1);
      expect(provider.requests.map((q) => q.toolChoice)).toEqual([...Array(toolSteps).fill("auto"), "none"]);
    });
  }

  it("costExceeds without a cost to read (no pricing) fails the run at its first check, clearly, leaving history valid; with pricing it stops", async () => {
    const turns = () => scriptedProvider([callEcho("a"), callEcho("b"), "final", "next"]);
    const client = createClient({ provider: turns(), tools: [echo], stopWhen: costExceeds(0.1) });
    await expect(client.chat("x")).rejects.toMatchObject({ code: "invalid_options", message: expect.stringContaining("pricing") });
    expect(historyProblems(client.history)).toEqual([]);
    // 100 in and 10 out at 3 and 15 USD per million: 0.00045 a step, past 0.0005 after two
    const provider = scriptedProvider([callEcho("a"), callEcho("b"), "final", "next"]);
    const priced = createClient({ provider, tools: [echo], stopWhen: costExceeds(0.0005), pricing: { input: 3, output: 15 } });
    expect(await priced.run("x")).toMatchObject({ text: "final", steps: 3 });
    expect(provider.requests.map((q) => q.toolChoice)).toEqual(["auto", "auto", "none"]);
  });

  it("per-call maxSteps overrides the client's", async () => {
    const client = createClient({ provider: scriptedProvider([callEcho("a"), callEcho("b"), "z"]), tools: [echo], maxSteps: 10 });
    await expect(client.chat("x", { maxSteps: 1 })).rejects.toMatchObject({ code: "max_steps" });
    await expect(client.chat("x", { maxSteps: 0 })).rejects.toThrow(InvalidOptionsError);
  });

  it("toolChoice from createClient reaches each request, and per call overrides it", async () => {
    const provider = scriptedProvider(["a", "b"]);
    const client = createClient({ provider, tools: [echo], toolChoice: "required" });
    await client.chat("x");
    await client.chat("y", { toolChoice: { name: "ECHO" } });
    expect(provider.requests.map((r) => r.toolChoice)).toEqual(["required", { name: "echo" }]);
  });
});
