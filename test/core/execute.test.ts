import * as v from "valibot";
import { afterEach, describe, expect, it, vi } from "vitest";
import { InvalidOptionsError } from "../../src/base/errors.js";
import { createClient, type StreamEvent, type ToolContext, type ToolMessage, tool } from "../../src/index.js";
import { type ScriptedCall, scriptedProvider } from "../../src/testing.js";
import { aborted, historyProblems, ticks } from "./helpers.js";

/** A tool that counts how many of its calls run at once. `hold(i)` = microtask ticks call i stays busy. */
function concurrencyProbe(hold: (n: number) => number = () => 5) {
  const probe = { active: 0, max: 0, started: [] as number[], finished: [] as number[], contexts: [] as ToolContext[] };
  const t = tool({
    name: "probe",
    description: "A test tool.",
    input: v.object({ n: v.number() }),
    run: async ({ n }, ctx) => {
      probe.contexts.push(ctx);
      probe.started.push(n);
      probe.active++;
      probe.max = Math.max(probe.max, probe.active);
      await ticks(hold(n));
      probe.active--;
      probe.finished.push(n);
      return `done ${n}`;
    },
  });
  return { probe, tool: t };
}

const calls = (count: number): ScriptedCall[] => Array.from({ length: count }, (_, n) => ({ name: "probe", arguments: { n }, id: `call_${n}` }));

afterEach(() => {
  vi.restoreAllMocks();
});

describe("execute: sequential (default)", () => {
  it("runs a step's calls one after another, in call order, with no overlap", async () => {
    const { probe, tool: t } = concurrencyProbe((n) => 10 - n);
    const client = createClient({ provider: scriptedProvider([{ toolCalls: calls(6) }, "ok"]), tools: [t] });
    await client.chat("go");
    expect(probe.max).toBe(1);
    expect(probe.started).toEqual([0, 1, 2, 3, 4, 5]);
    expect(probe.finished).toEqual([0, 1, 2, 3, 4, 5]);
  });
});

describe("execute: parallel (parallelTools)", () => {
  it("starts a step's calls in call order, each exactly once, and overlaps them", async () => {
    const { probe, tool: t } = concurrencyProbe();
    const client = createClient({
      provider: scriptedProvider([{ toolCalls: calls(1) }, { toolCalls: calls(3) }, "ok"]),
      tools: [t],
      parallelTools: true,
    });
    await client.chat("go");
    expect(probe.started).toEqual([0, 0, 1, 2]);
    expect(probe.max).toBe(3);
  });

  it("runs at most 5 at once by default, and exactly 5 while more wait", async () => {
    const { probe, tool: t } = concurrencyProbe();
    const client = createClient({ provider: scriptedProvider([{ toolCalls: calls(12) }, "ok"]), tools: [t], parallelTools: true });
    await client.chat("go");
    expect(probe.max).toBe(5);
    expect(probe.finished).toHaveLength(12);
  });

  it.each([1, 2, 3, 7])("runs at most maxParallelTools=%i at once, and reaches that bound", async (bound) => {
    const { probe, tool: t } = concurrencyProbe((n) => 1 + (n % 4));
    const client = createClient({
      provider: scriptedProvider([{ toolCalls: calls(10) }, "ok"]),
      tools: [t],
      parallelTools: true,
      maxParallelTools: bound,
    });
    await client.chat("go");
    expect(probe.max).toBe(bound);
  });

  it("never runs more at once than there are calls", async () => {
    const { probe, tool: t } = concurrencyProbe();
    const client = createClient({ provider: scriptedProvider([{ toolCalls: calls(3) }, "ok"]), tools: [t], parallelTools: true });
    await client.chat("go");
    expect(probe.max).toBe(3);
  });

  it("keeps results in call order when completion order differs (and streams them as they finish)", async () => {
    // call n finishes after (10 - n) ticks: the last call finishes first
    const { probe, tool: t } = concurrencyProbe((n) => 3 * (10 - n));
    const client = createClient({ provider: scriptedProvider([{ toolCalls: calls(6) }, "ok"]), tools: [t], parallelTools: true, maxParallelTools: 6 });
    const events: StreamEvent[] = [];
    for await (const e of client.stream("go")) events.push(e);
    expect(probe.finished).toEqual([5, 4, 3, 2, 1, 0]);
    const results = (client.history[2] as ToolMessage).results;
    expect(results.map((r) => r.callId)).toEqual(["call_0", "call_1", "call_2", "call_3", "call_4", "call_5"]);
    expect(results.map((r) => r.output)).toEqual(["done 0", "done 1", "done 2", "done 3", "done 4", "done 5"]);
    const streamed = events.filter((e) => e.type === "tool-result").map((e) => (e as { callId: string }).callId);
    expect(streamed).toEqual(["call_5", "call_4", "call_3", "call_2", "call_1", "call_0"]);
  });

  it("rejects a maxParallelTools that is not a positive integer", () => {
    for (const bad of [0, -2, 2.5]) {
      expect(() => createClient({ provider: scriptedProvider([]), maxParallelTools: bad })).toThrow(InvalidOptionsError);
    }
  });
});

describe("execute: context", () => {
  it.each([false, true])("gives every handler its own ctx.signal and the call's ctx.callId (parallel: %s)", async (parallelTools) => {
    const { probe, tool: t } = concurrencyProbe();
    const client = createClient({ provider: scriptedProvider([{ toolCalls: calls(4) }, "ok"]), tools: [t], parallelTools });
    await client.chat("go");
    expect(probe.contexts.map((c) => c.callId).sort()).toEqual(["call_0", "call_1", "call_2", "call_3"]);
    for (const c of probe.contexts) {
      expect(c.signal).toBeInstanceOf(AbortSignal);
      expect(c.signal.aborted).toBe(false);
      expect(typeof c.logger.info).toBe("function");
    }
    expect(new Set(probe.contexts.map((c) => c.signal)).size).toBe(4);
  });
});

describe("execute: per-tool timeout", () => {
  it("answers a call that outlives its timeout with a tool error and aborts the handler's signal", async () => {
    let seen: unknown;
    const slow = tool({
      name: "slow",
      description: "A test tool.",
      input: v.object({}),
      timeout: 20,
      run: async (_input, ctx) => {
        seen = await aborted(ctx.signal);
        return "too late";
      },
    });
    const provider = scriptedProvider([{ toolCalls: [{ name: "slow", id: "s1" }] }, "ok"]);
    const client = createClient({ provider, tools: [slow] });
    const events: StreamEvent[] = [];
    for await (const e of client.stream("go")) events.push(e);
    const result = (client.history[2] as ToolMessage).results[0]!;
    expect(result).toEqual({ callId: "s1", name: "slow", output: '{"error":"tool \\"slow\\" timed out after 20 ms"}', isError: true });
    expect(seen).toMatchObject({ code: "tool_timeout", ms: 20 });
    expect(events.find((e) => e.type === "tool-result")).toMatchObject({ outcome: "timeout" });
    expect(client.lastRun!.toolFailures).toBe(1);
    expect(provider.requests).toHaveLength(2);
  });

  it("times out even a handler that ignores its signal", async () => {
    let finishLater!: () => void;
    const stubborn = tool({
      name: "stubborn",
      description: "A test tool.",
      input: v.object({}),
      timeout: 10,
      run: () => new Promise<string>((r) => (finishLater = () => r("late"))),
    });
    const client = createClient({ provider: scriptedProvider([{ toolCalls: [{ name: "stubborn", id: "s1" }] }, "ok"]), tools: [stubborn] });
    expect(await client.chat("go")).toBe("ok");
    expect((client.history[2] as ToolMessage).results[0]!.output).toContain("timed out");
    finishLater(); // the late answer changes nothing
    await ticks(3);
    expect((client.history[2] as ToolMessage).results[0]!.output).toContain("timed out");
    expect(historyProblems(client.history)).toEqual([]);
  });

  it("does not time out a call that finishes in time", async () => {
    const quick = tool({ name: "quick", description: "A test tool.", input: v.object({}), timeout: 60_000, run: () => "fast" });
    const client = createClient({ provider: scriptedProvider([{ toolCalls: [{ name: "quick" }] }, "ok"]), tools: [quick] });
    await client.chat("go");
    expect((client.history[2] as ToolMessage).results[0]).toMatchObject({ output: "fast", isError: false });
  });
});

describe("execute: maxToolOutput", () => {
  const big = (size: number) => tool({ name: "big", description: "A test tool.", input: v.object({}), run: () => "x".repeat(size) });

  it("truncates a longer result and says how much was cut", async () => {
    const client = createClient({ provider: scriptedProvider([{ toolCalls: [{ name: "big" }] }, "ok"]), tools: [big(25)], maxToolOutput: 10 });
    await client.chat("go");
    expect((client.history[2] as ToolMessage).results[0]!.output).toBe("xxxxxxxxxx\n[truncated: 15 more characters]");
  });

  it("keeps a result of exactly maxToolOutput characters whole", async () => {
    const client = createClient({ provider: scriptedProvider([{ toolCalls: [{ name: "big" }] }, "ok"]), tools: [big(10)], maxToolOutput: 10 });
    await client.chat("go");
    expect((client.history[2] as ToolMessage).results[0]!.output).toBe("x".repeat(10));
  });

  it("caps a thrown error's message (and a panic's) the same way, inside JSON that stays valid", async () => {
    const throws = tool({ name: "big", description: "A test tool.", input: v.object({}), run: () => Promise.reject(new Error("e".repeat(50_000))) });
    const panics = { name: "panics", description: "A test tool.", parameters: { type: "object" }, call: () => Promise.reject("p".repeat(50_000)) };
    const client = createClient({
      provider: scriptedProvider([{ toolCalls: [{ name: "big" }, { name: "panics" }] }, "ok"]),
      tools: [throws, panics],
      maxToolOutput: 1000,
    });
    await client.chat("go");
    for (const r of (client.history[2] as ToolMessage).results) {
      expect(r.isError).toBe(true);
      expect(r.output.length).toBeLessThan(1100);
      expect(JSON.parse(r.output).error).toMatch(/\[truncated: \d+ more characters\]$/);
    }
  });

  it("defaults to 100,000 characters", async () => {
    const client = createClient({ provider: scriptedProvider([{ toolCalls: [{ name: "big" }] }, "ok"]), tools: [big(100_001)] });
    await client.chat("go");
    const out = (client.history[2] as ToolMessage).results[0]!.output;
    expect(out.startsWith("x".repeat(100_000) + "\n[truncated: 1 more characters]")).toBe(true);
  });
});
