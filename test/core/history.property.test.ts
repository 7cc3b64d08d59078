// The history invariant under random sequences of chats, streams, aborts (at random
// moments, including while tools run), provider errors, throwing tools and add()s made
// while a run is in flight. Everything runs on microtasks (no timers), so 10,000 runs
// take seconds and every failure replays from the seed. The long test timeout is a guard
// for a loaded CI machine, not a speed assertion.
import fc from "fast-check";
import * as v from "valibot";
import { describe, it } from "vitest";
import { createClient, isToolloopError, type ModelResponse, type Provider, ProviderError, type ToolCall, tool } from "../../src/index.js";
import { historyProblems, recordingLogger, ticks } from "./helpers.js";

type CallKind = "ok" | "slow" | "throw" | "panic" | "reject" | "wait" | "invalid" | "unknown" | "badjson";
type Turn = { kind: "text"; delay: number } | { kind: "tools"; delay: number; calls: { kind: CallKind; ticks: number }[] } | { kind: "error"; delay: number };

type Op =
  | {
      kind: "chat" | "stream";
      turns: Turn[];
      abortAt: number | undefined; // microticks after the call starts
      customReason: boolean;
      addAt: number | undefined; // an add() made while the run is in flight
      breakAfter: number; // stream only: leave the for-await after this many events
    }
  | { kind: "add" };

const callKind = fc.constantFrom<CallKind>("ok", "ok", "slow", "throw", "panic", "reject", "wait", "invalid", "unknown", "badjson");
const turn: fc.Arbitrary<Turn> = fc.oneof(
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("text" as const), delay: fc.nat(4) }) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("tools" as const),
      delay: fc.nat(4),
      calls: fc.array(fc.record({ kind: callKind, ticks: fc.nat(6) }), { minLength: 1, maxLength: 4 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("error" as const), delay: fc.nat(2) }) },
);
const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constantFrom("chat" as const, "stream" as const),
      turns: fc.array(turn, { minLength: 1, maxLength: 4 }),
      abortAt: fc.option(fc.nat(40), { nil: undefined }),
      customReason: fc.boolean(),
      addAt: fc.option(fc.nat(30), { nil: undefined }),
      breakAfter: fc.nat(30),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: "add" as const }) },
);
const config = fc.record({
  parallelTools: fc.boolean(),
  maxParallelTools: fc.integer({ min: 1, max: 3 }),
  maxSteps: fc.integer({ min: 1, max: 4 }),
  finalAnswerOnMaxSteps: fc.boolean(),
});

/** A provider that plays the turns queued for the current call and honours the signal. */
function turnProvider() {
  let queue: Turn[] = [];
  let seq = 0;
  const badRequests: string[][] = [];
  const provider: Provider = {
    name: "prop",
    async generate(req): Promise<ModelResponse> {
      const problems = historyProblems(req.messages, { json: false });
      if (problems.length) badRequests.push(problems);
      const t = queue.shift() ?? { kind: "text", delay: 0 };
      for (let i = 0; i < t.delay; i++) {
        await Promise.resolve();
        if (req.signal?.aborted) throw req.signal.reason;
      }
      if (req.signal?.aborted) throw req.signal.reason;
      if (t.kind === "error") throw new ProviderError({ provider: "prop", status: 500, message: "scripted failure" });
      if (t.kind === "text" || req.toolChoice === "none") {
        return { text: "answer", toolCalls: [], finishReason: "stop", usage: { inputTokens: 1, outputTokens: 1 } };
      }
      const toolCalls: ToolCall[] = t.calls.map((c) => {
        const id = `c${++seq}`;
        switch (c.kind) {
          case "unknown":
            return { id, name: "no_such_tool", arguments: "{}" };
          case "invalid":
            return { id, name: "ok", arguments: JSON.stringify({ ticks: "many" }) };
          case "badjson":
            return { id, name: "ok", arguments: "{ticks: 1," };
          default:
            return { id, name: c.kind, arguments: JSON.stringify({ ticks: c.ticks }) };
        }
      });
      return { text: "", toolCalls, finishReason: "tool-calls", usage: { inputTokens: 1, outputTokens: 1 } };
    },
  };
  return {
    provider,
    badRequests,
    play(turns: Turn[]) {
      queue = [...turns];
    },
  };
}

const input = v.object({ ticks: v.number() });
const tools = [
  tool({ name: "ok", description: "A test tool.", input, run: async ({ ticks: n }) => (await ticks(n), "fine") }),
  tool({ name: "slow", description: "A test tool.", input, run: async ({ ticks: n }) => (await ticks(n * 3), { slow: true }) }),
  tool({
    name: "throw",
    description: "A test tool.",
    input,
    run: () => {
      throw new Error("tool failed");
    },
  }),
  tool({
    name: "panic",
    description: "A test tool.",
    input,
    run: () => {
      throw { weird: "value" };
    },
  }),
  tool({ name: "reject", description: "A test tool.", input, run: async ({ ticks: n }) => (await ticks(n), Promise.reject(new Error("late failure"))) }),
  tool({
    name: "wait",
    description: "A test tool.",
    input,
    // waits for the run's abort, or gives up after a while (so a run without abort ends)
    run: async ({ ticks: n }, ctx) => {
      for (let i = 0; i < 10 + n * 4 && !ctx.signal.aborted; i++) await Promise.resolve();
      return ctx.signal.aborted ? "saw abort" : "no abort";
    },
  }),
];

/** Starts `fn` `n` microticks from now. */
function after(n: number, fn: () => void): void {
  void ticks(n).then(fn);
}

describe("history invariant (property)", () => {
  it("holds after every chat / stream / abort / provider error / throwing tool / add, with no uncaught error", async () => {
    await fc.assert(
      fc.asyncProperty(config, fc.array(op, { minLength: 1, maxLength: 5 }), async (cfg, ops) => {
        const model = turnProvider();
        const logger = recordingLogger();
        const client = createClient({ provider: model.provider, tools, logger, ...cfg });
        let before = "[]"; // the history as JSON after the previous operation
        let beforeLength = 0;
        for (const o of ops) {
          if (o.kind === "add") {
            client.add({ role: "user", content: "added" });
          } else {
            model.play(o.turns);
            const controller = new AbortController();
            const reason = o.customReason ? new Error("caller's reason") : undefined;
            if (o.abortAt !== undefined) after(o.abortAt, () => controller.abort(reason));
            if (o.addAt !== undefined) after(o.addAt, () => client.add({ role: "user", content: "added during run" }));
            let outcome: { ok: true } | { ok: false; error: unknown };
            try {
              if (o.kind === "chat") {
                const text = await client.chat("go", { signal: controller.signal });
                if (typeof text !== "string") throw new Error("chat resolved to a non-string");
              } else {
                let seen = 0;
                for await (const _ of client.stream("go", { signal: controller.signal })) {
                  if (++seen > o.breakAfter) break;
                }
              }
              outcome = { ok: true };
            } catch (error) {
              outcome = { ok: false, error };
            }
            // valid the moment the call returns (for a stream: the moment the for-await is left) ...
            const atReturn = historyProblems(client.history, { json: false });
            if (atReturn.length) throw new Error(`history broken when ${o.kind} returned: ${atReturn.join("; ")}`);
            // ... and still after a late abort or add has landed
            await ticks(45);
            if (!outcome.ok) {
              const e = outcome.error;
              const expected = (controller.signal.aborted && e === controller.signal.reason) || e instanceof ProviderError || isToolloopError(e, "max_steps");
              if (!expected) throw new Error(`unexpected rejection: ${String(e)}`);
              if (controller.signal.aborted && e === controller.signal.reason && !reason && (e as Error).name !== "AbortError") {
                throw new Error(`an abort without a reason rejected with ${String(e)}, not an AbortError`);
              }
            }
          }
          const history = client.history;
          const problems = historyProblems(history, { json: false });
          if (problems.length) throw new Error(`history broken after ${o.kind}: ${problems.join("; ")}`);
          // completed steps stay: what was there before is still there, unchanged
          const now = JSON.stringify(history);
          if (JSON.stringify(history.slice(0, beforeLength)) !== before) throw new Error(`history was rewritten by ${o.kind}`);
          if (JSON.stringify(JSON.parse(now)) !== now) throw new Error("history is not plain JSON");
          before = now;
          beforeLength = history.length;
        }
        if (model.badRequests.length) throw new Error(`a request carried a broken history: ${model.badRequests[0]!.join("; ")}`);
        // the loop kept the invariant itself: the healer never had anything to repair
        if (logger.entries.some((e) => e.message === "history repaired")) throw new Error("the history needed repair");
      }),
      { seed: 424242, numRuns: 10_000 },
    );
  }, 120_000);
});
