// pricing → usage.cost: cache reads and writes at their rates (they are parts of inputTokens),
// reasoning inside outputTokens, per step and summed over the run; over the real Claude adapter
// and its mock, with the usage fields the real API sends.

import * as v from "valibot";
import { afterEach, describe, expect, it } from "vitest";
import { claude } from "../../adapters/claude/index.js";
import { isToolloopError } from "../../src/base/errors.js";
import { usageCost } from "../../src/cost/pricing.js";
import { createClient, type Provider, type StreamEvent, tool, type Usage } from "../../src/index.js";
import { scriptedProvider } from "../../src/testing.js";
import { type ClaudeMock, startClaudeMock } from "../mock/claude.js";

const PRICING = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };
const mocks: ClaudeMock[] = [];
afterEach(async () => {
  await Promise.all(mocks.splice(0).map((m) => m.close()));
});

/** A provider answering from a list of usages: one tool call per turn, then text. */
function usageProvider(usages: Usage[]): Provider {
  let i = 0;
  return {
    name: "fake",
    async generate() {
      const usage = usages[i]!;
      const last = ++i === usages.length;
      return last
        ? { text: "done", toolCalls: [], finishReason: "stop", usage }
        : { text: "", toolCalls: [{ id: `c${i}`, name: "noop", arguments: "{}" }], finishReason: "tool-calls", usage };
    },
  };
}
const noop = tool({ name: "noop", description: "Does nothing.", input: v.object({}), run: async () => "ok" });

describe("scriptedProvider's usage", () => {
  it("keeps every scripted usage field, so cost can be tested with cache tokens", async () => {
    const usage = { inputTokens: 1300, cacheReadTokens: 1000, cacheWriteTokens: 200, outputTokens: 50, reasoningTokens: 20, webSearches: 1 };
    const client = createClient({ provider: scriptedProvider([{ text: "hi", usage }]), pricing: PRICING });
    const r = await client.run("x");
    expect(r.usage).toEqual({ ...usage, cost: usageCost(usage, PRICING) });
    expect(r.usage.cost).toBeCloseTo((100 * 3 + 1000 * 0.3 + 200 * 3.75 + 50 * 15) / 1e6, 12);
  });
});

describe("usageCost", () => {
  it("prices uncached input, cache reads, cache writes and output at their own rates", () => {
    const u = { inputTokens: 1300, cacheReadTokens: 1000, cacheWriteTokens: 200, outputTokens: 50, reasoningTokens: 20 };
    expect(usageCost(u, PRICING)).toBeCloseTo((100 * 3 + 1000 * 0.3 + 200 * 3.75 + 50 * 15) / 1e6, 12);
  });
  it("cache rates default to the input rate; reasoning is not billed twice", () => {
    const u = { inputTokens: 1000, cacheReadTokens: 400, outputTokens: 100, reasoningTokens: 60 };
    expect(usageCost(u, { input: 2, output: 10 })).toBeCloseTo((1000 * 2 + 100 * 10) / 1e6, 12);
  });
});

describe("createClient({ pricing })", () => {
  it("puts cost on each step-finish usage and the run's total is their sum", async () => {
    const usages: Usage[] = [
      { inputTokens: 2000, outputTokens: 100, cacheWriteTokens: 1800 },
      { inputTokens: 2300, outputTokens: 80, cacheReadTokens: 1800, cacheWriteTokens: 300 },
      { inputTokens: 2500, outputTokens: 40, cacheReadTokens: 2100, reasoningTokens: 10 },
    ];
    const client = createClient({ provider: usageProvider(usages), pricing: PRICING, tools: [noop] });
    const events: StreamEvent[] = [];
    for await (const e of client.stream("go")) events.push(e);
    const steps = events.filter((e) => e.type === "step-finish");
    expect(steps.map((e) => e.usage.cost)).toEqual(usages.map((u) => usageCost(u, PRICING)));
    const finish = events.at(-1)!;
    expect(finish.type).toBe("finish");
    if (finish.type !== "finish") return;
    const sum = usages.reduce((s, u) => s + usageCost(u, PRICING), 0);
    expect(finish.usage.cost).toBeCloseTo(sum, 12);
    expect(finish.usage).toMatchObject({ inputTokens: 6800, outputTokens: 220, cacheReadTokens: 3900, cacheWriteTokens: 2100, reasoningTokens: 10 });
    expect(client.lastRun?.usage.cost).toBeCloseTo(sum, 12);
  });

  it("without pricing there is no cost field", async () => {
    const client = createClient({ provider: usageProvider([{ inputTokens: 10, outputTokens: 5 }]) });
    await client.chat("hi");
    expect(client.lastRun?.usage).toEqual({ inputTokens: 10, outputTokens: 5 });
  });

  it("refuses a negative, missing or non-numeric rate with invalid_options", () => {
    const provider = usageProvider([{ inputTokens: 1, outputTokens: 1 }]);
    for (const pricing of [
      { input: -1, output: 1 },
      { input: 1 } as never,
      { input: 1, output: 1, cacheRead: Number.NaN },
      { input: "3", output: 1 } as never,
    ]) {
      let err: unknown;
      try {
        createClient({ provider, pricing });
      } catch (e) {
        err = e;
      }
      expect(isToolloopError(err, "invalid_options"), JSON.stringify(pricing)).toBe(true);
    }
  });

  it("prices the Claude mock's real usage fields (cache_read / cache_creation are parts of the input)", async () => {
    const mock = await startClaudeMock({ script: [] });
    mocks.push(mock);
    mock.enqueue({
      status: 200,
      headers: { "request-id": "req_1" },
      body: JSON.stringify({
        id: "msg_1",
        type: "message",
        role: "assistant",
        model: "claude-sonnet-4-5",
        content: [{ type: "text", text: "Cached answer." }],
        stop_reason: "end_turn",
        stop_sequence: null,
        usage: { input_tokens: 100, cache_creation_input_tokens: 200, cache_read_input_tokens: 1000, output_tokens: 50 },
      }),
    });
    const client = createClient({ provider: claude({ apiKey: "sk-ant-test-0123456789", model: "claude-sonnet-4-5", baseURL: mock.url }), pricing: PRICING });
    expect(await client.chat("hello")).toBe("Cached answer.");
    const u = client.lastRun!.usage;
    expect(u).toMatchObject({ inputTokens: 1300, cacheReadTokens: 1000, cacheWriteTokens: 200, outputTokens: 50 });
    expect(u.cost).toBeCloseTo((100 * 3 + 1000 * 0.3 + 200 * 3.75 + 50 * 15) / 1e6, 12);
  });
});
