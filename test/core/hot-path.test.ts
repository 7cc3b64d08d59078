// Shapes the loop's hot paths must keep while they are made cheaper (issue 24): a handler's
// context, and the step-finish event built from a provider's response.
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { createClient, tool, type Provider, type StepResult, type ToolContext } from "../../src/index.js";
import { stepFinish } from "../../src/loop/step-finish.js";
import type { ModelResponse } from "../../src/conversation/provider.js";

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
