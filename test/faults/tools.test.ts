// Tool faults, for every adapter over real HTTP: a handler that throws, rejects, throws a
// non-Error, never settles (per-tool timeout), returns a circular object / a BigInt /
// undefined, or returns a huge string (maxToolOutput). None of them can crash or abort
// the run: each becomes a result the model can read, the next request carries exactly
// that result, and the run goes on to the model's answer.

import * as v from "valibot";
import { afterEach, describe, expect, it } from "vitest";
import { createClient, type Tool, tool } from "../../src/index.js";
import { recordingLogger } from "../core/helpers.js";
import { type Mock, ROWS } from "./rows.js";
import { drive, expectValidHistory, MODES } from "./support.js";

let mock: Mock | undefined;
afterEach(async () => {
  await mock?.close();
  mock = undefined;
});

const input = v.object({ n: v.number() });
const circular = (): unknown => {
  const o: Record<string, unknown> = { name: "loop", list: [1, 2] };
  o.self = o;
  (o.list as unknown[]).push(o);
  return o;
};

interface Case {
  name: string;
  tool: Tool;
  /** The exact output the history holds and the next request carries. */
  output: string | ((output: string) => void);
  isError: boolean;
  outcome: string;
  log?: { level: string; message: string };
}

const HUGE = "x".repeat(50_000) + "THE-END";
const DEEP_TEXT = '{"a":'.repeat(10_000) + "1" + "}".repeat(10_000);

const CASES: Case[] = [
  {
    name: "throws an Error",
    tool: tool({
      name: "throws",
      description: "A test tool.",
      input,
      run: () => {
        throw new Error("disk full");
      },
    }),
    output: '{"error":"disk full"}',
    isError: true,
    outcome: "error",
    log: { level: "warn", message: "tool error" },
  },
  {
    name: "rejects",
    tool: tool({ name: "rejects", description: "A test tool.", input, run: async () => Promise.reject(new TypeError("bad state")) }),
    output: '{"error":"bad state"}',
    isError: true,
    outcome: "error",
  },
  {
    name: "throws a non-Error value (a panic)",
    tool: tool({
      name: "panics",
      description: "A test tool.",
      input,
      run: () => {
        throw { code: 42, why: "not an Error" };
      },
    }),
    output: JSON.stringify({ error: 'tool handler panicked: {"code":42,"why":"not an Error"}' }),
    isError: true,
    outcome: "panic",
    log: { level: "error", message: "tool panic" },
  },
  {
    name: "throws a string",
    tool: tool({
      name: "throws_string",
      description: "A test tool.",
      input,
      run: () => {
        throw "oops";
      },
    }),
    output: '{"error":"tool handler panicked: oops"}',
    isError: true,
    outcome: "panic",
  },
  {
    name: "never settles (per-tool timeout)",
    tool: tool({ name: "hangs", description: "A test tool.", input, timeout: 60, run: () => new Promise(() => {}) }),
    output: '{"error":"tool \\"hangs\\" timed out after 60 ms"}',
    isError: true,
    outcome: "timeout",
  },
  {
    name: "returns a circular object",
    tool: tool({ name: "circular", description: "A test tool.", input, run: circular }),
    output: (out) => {
      expect(JSON.parse(out)).toEqual({ name: "loop", list: [1, 2, "[Circular]"], self: "[Circular]" });
    },
    isError: false,
    outcome: "ok",
  },
  {
    name: "returns a BigInt",
    tool: tool({ name: "bigint", description: "A test tool.", input, run: () => ({ big: 12345678901234567890n, plain: 10n }) }),
    output: '{"big":"12345678901234567890","plain":"10"}',
    isError: false,
    outcome: "ok",
  },
  {
    name: "returns undefined",
    tool: tool({ name: "nothing", description: "A test tool.", input, run: () => undefined }),
    output: "null",
    isError: false,
    outcome: "ok",
  },
  {
    name: "returns a huge string (maxToolOutput truncates with a marker)",
    tool: tool({ name: "huge", description: "A test tool.", input, run: () => HUGE }),
    output: `${HUGE.slice(0, 1000)}\n[truncated: ${HUGE.length - 1000} more characters]`,
    isError: false,
    outcome: "ok",
  },
  {
    name: "a hand-written Tool whose call throws synchronously",
    tool: {
      name: "sync_throw",
      description: "A test tool.",
      parameters: { type: "object", properties: {} },
      call: () => {
        throw new RangeError("sync failure");
      },
    },
    output: '{"error":"sync failure"}',
    isError: true,
    outcome: "error",
  },
];

function checkOutput(c: Case, output: string): void {
  if (typeof c.output === "string") expect(output).toBe(c.output);
  else c.output(output);
}

describe.each(ROWS)("$label: tool faults", (row) => {
  describe.each(MODES)("%s mode", (mode) => {
    it.each(CASES)("a tool that $name: the run goes on, the model gets the result verbatim", async (c) => {
      const m = await row.start({ script: [{ toolCalls: [{ id: "call_t1", name: c.tool.name, input: { n: 1 } }] }, { text: "done" }] });
      mock = m;
      const logger = recordingLogger();
      const outcomes: string[] = [];
      const client = createClient({ provider: row.provider(m), tools: [c.tool], maxToolOutput: 1000, logger });
      let text: string;
      if (mode === "sse") {
        text = "";
        for await (const ev of client.stream("go")) {
          if (ev.type === "tool-result") outcomes.push(ev.outcome);
          if (ev.type === "finish") text = ev.text;
        }
        expect(outcomes).toEqual([c.outcome]);
      } else text = await drive(client, "go", mode);
      expect(text).toBe("done");
      const history = client.history;
      expectValidHistory(client);
      const result = history[2]!.role === "tool" ? history[2]!.results[0]! : undefined;
      expect(result).toBeDefined();
      checkOutput(c, result!.output);
      expect(result!.isError).toBe(c.isError);
      // The next request carried exactly what the history holds.
      const sent = row.toolResults(m.bodies()[1]);
      expect(sent).toHaveLength(1);
      expect(sent[0]!.id).toBe("call_t1");
      checkOutput(c, sent[0]!.output);
      if (c.log) expect(logger.entries.some((e) => e.level === c.log!.level && e.message === c.log!.message)).toBe(true);
    });
  });

  it("all faults in one parallel step: every call answered in call order, the answer arrives", async () => {
    const calls = CASES.map((c, i) => ({ id: `call_p${i}`, name: c.tool.name, input: { n: i } }));
    const m = await row.start({ script: [{ toolCalls: calls }, { text: "all answered" }] });
    mock = m;
    const client = createClient({ provider: row.provider(m), tools: CASES.map((c) => c.tool), parallelTools: true, maxParallelTools: 3, maxToolOutput: 1000 });
    await expect(client.chat("go")).resolves.toBe("all answered");
    expectValidHistory(client);
    const tm = client.history[2]!;
    if (tm.role !== "tool") throw new Error("no tool message");
    expect(tm.results.map((r) => r.callId)).toEqual(calls.map((c) => c.id));
    CASES.forEach((c, i) => checkOutput(c, tm.results[i]!.output));
    const sent = row.toolResults(m.bodies()[1]);
    expect(sent.map((s) => s.id)).toEqual(calls.map((c) => c.id));
    CASES.forEach((c, i) => checkOutput(c, sent[i]!.output));
  });

  it.each(MODES)("%s: a tool that returns JSON text nested 10,000 deep: the model gets the text, the request stays sendable", async (mode) => {
    const deep = tool({ name: "deep_text", description: "A test tool.", input, run: () => DEEP_TEXT });
    const m = await row.start({ script: [{ toolCalls: [{ id: "call_d1", name: "deep_text", input: { n: 1 } }] }, { text: "done" }] });
    mock = m;
    const client = createClient({ provider: row.provider(m), tools: [deep] });
    await expect(drive(client, "go", mode)).resolves.toBe("done");
    expect(row.toolResults(m.bodies()[1])).toEqual([{ id: "call_d1", output: DEEP_TEXT }]);
    expectValidHistory(client);
  });

  it("a timed-out handler sees its ctx.signal aborted with the ToolTimeoutError", async () => {
    let reason: unknown;
    const slow = tool({
      name: "slow",
      description: "A test tool.",
      input,
      timeout: 40,
      run: (_i, ctx) =>
        new Promise((resolve) => {
          ctx.signal.addEventListener("abort", () => {
            reason = ctx.signal.reason;
            resolve("finished after the timeout");
          });
        }),
    });
    const m = await row.start({ script: [{ toolCalls: [{ id: "call_s1", name: "slow", input: { n: 1 } }] }, { text: "done" }] });
    mock = m;
    const client = createClient({ provider: row.provider(m), tools: [slow] });
    await expect(client.chat("go")).resolves.toBe("done");
    expect((reason as { code?: string }).code).toBe("tool_timeout");
    const tm = client.history[2]!;
    expect(tm.role === "tool" && tm.results[0]!.output).toBe('{"error":"tool \\"slow\\" timed out after 40 ms"}');
  });
});
