// Twin call ids in one saved step: an assistant message whose calls share an id (a history
// built by hand, moved from a server that numbers calls per step, or saved before the loop
// renamed twins), answered by one result each, in call order. Each result must reach the
// wire with its own call, and the healer must not give both calls the first result.
import { afterEach, describe, expect, it } from "vitest";
import { toWireMessages } from "../../adapters/claude/encode.js";
import { encodeContents } from "../../adapters/gemini/encode.js";
import { healHistory } from "../../src/conversation/history.js";
import { createClient, type Message } from "../../src/index.js";
import { validateRequest } from "../mock/claude.js";
import { type Mock, ROWS } from "./rows.js";
import { expectValidHistory } from "./support.js";

const mocks: Mock[] = [];
afterEach(async () => {
  await Promise.all(mocks.splice(0).map((m) => m.close()));
});

const call = (id: string, n: number) => ({ id, name: "check", arguments: `{"n":${n}}` });
const result = (id: string, output: string) => ({ callId: id, name: "check", output, isError: false });

/** A finished step whose two calls share the id `a`. */
const twins = (providerData?: Record<string, unknown>): Message[] => [
  { role: "user", content: "check both" },
  { role: "assistant", content: "", toolCalls: [call("a", 1), call("a", 2)], ...(providerData && { providerData: providerData as never }) },
  { role: "tool", results: [result("a", "one"), result("a", "two")] },
  { role: "assistant", content: "checked" },
];

describe("the healer pairs twin ids by position", () => {
  it("two results for two twin calls are already valid: nothing changes", () => {
    const history = twins();
    const before = structuredClone(history);
    expect(healHistory(history)).toBe(0);
    expect(history).toEqual(before);
  });

  it("one result for two twin calls: the first call gets it, the second is cancelled", () => {
    const history: Message[] = [
      { role: "user", content: "go" },
      { role: "assistant", content: "", toolCalls: [call("a", 1), call("a", 2)] },
      { role: "tool", results: [result("a", "one")] },
    ];
    expect(healHistory(history)).toBe(1);
    const tm = history[2]!;
    expect(tm.role === "tool" && tm.results.map((r) => [r.callId, r.output])).toEqual([
      ["a", "one"],
      ["a", '{"error":"cancelled"}'],
    ]);
  });

  it("twins among other calls, results out of order: each twin keeps its own result, an extra one is dropped", () => {
    const history: Message[] = [
      { role: "user", content: "go" },
      { role: "assistant", content: "", toolCalls: [call("a", 1), call("b", 2), call("a", 3)] },
      { role: "tool", results: [result("b", "bee"), result("a", "one"), result("a", "three"), result("a", "extra")] },
    ];
    expect(healHistory(history)).toBe(1);
    const tm = history[2]!;
    expect(tm.role === "tool" && tm.results.map((r) => [r.callId, r.output])).toEqual([
      ["a", "one"],
      ["b", "bee"],
      ["a", "three"],
    ]);
  });
});

describe("Claude wire ids for twins", () => {
  const pairs = (messages: ReturnType<typeof toWireMessages>) => {
    const uses = messages.flatMap((m) => m.content.filter((b) => b.type === "tool_use").map((b) => String(b.id)));
    const results = messages.flatMap((m) => m.content.filter((b) => b.type === "tool_result").map((b) => [String(b.tool_use_id), b.content]));
    return { uses, results };
  };

  it("the mock refuses two results for one tool_use (as the API does), so the checks below are real", () => {
    const messages = [
      { role: "user", content: "go" },
      {
        role: "assistant",
        content: [
          { type: "tool_use", id: "a", name: "check", input: {} },
          { type: "tool_use", id: "a_2", name: "check", input: {} },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "a", content: "one" },
          { type: "tool_result", tool_use_id: "a_2", content: "two" },
          { type: "tool_result", tool_use_id: "a_2", content: "two again" },
        ],
      },
    ];
    expect(validateRequest({ model: "m", max_tokens: 1, messages })).toMatch(/each tool_use must have a single result/);
  });

  it("neutral twins: each result points at its own call", () => {
    const messages = toWireMessages(twins());
    expect(pairs(messages)).toEqual({
      uses: ["a", "a_2"],
      results: [
        ["a", "one"],
        ["a_2", "two"],
      ],
    });
    expect(validateRequest({ model: "m", max_tokens: 1, messages })).toBeUndefined();
  });

  it("twins replayed from Claude's own blocks: both calls are sent, each result with its own", () => {
    const stored = {
      provider: "claude",
      value: [
        { type: "tool_use", id: "a", name: "check", input: { n: 1 } },
        { type: "tool_use", id: "a", name: "check", input: { n: 2 } },
      ],
    };
    const messages = toWireMessages(twins(stored));
    expect(pairs(messages)).toEqual({
      uses: ["a", "a_2"],
      results: [
        ["a", "one"],
        ["a_2", "two"],
      ],
    });
    const uses = messages[1]!.content;
    expect(uses.map((b) => (b as { input?: unknown }).input)).toEqual([{ n: 1 }, { n: 2 }]);
    expect(validateRequest({ model: "m", max_tokens: 1, messages })).toBeUndefined();
  });
});

describe("Gemini ids for twins", () => {
  const pairs = (history: Message[]) => {
    const contents = encodeContents(history, "gemini-2.5-flash");
    const calls = contents.flatMap((c) => c.parts.flatMap((p) => (p.functionCall ? [[p.functionCall.id, p.functionCall.args]] : [])));
    const responses = contents.flatMap((c) => c.parts.flatMap((p) => (p.functionResponse ? [[p.functionResponse.id, p.functionResponse.response]] : [])));
    return { calls, responses };
  };

  it("neutral twins: each functionResponse carries its own call's id", () => {
    expect(pairs(twins())).toEqual({
      calls: [
        ["a", { n: 1 }],
        ["a_2", { n: 2 }],
      ],
      responses: [
        ["a", { output: "one" }],
        ["a_2", { output: "two" }],
      ],
    });
  });

  it("twins replayed from Gemini's own parts: both calls are sent, each response with its own", () => {
    const stored = {
      provider: "gemini",
      value: {
        parts: [
          { functionCall: { id: "a", name: "check", args: { n: 1 } }, thoughtSignature: "sig" },
          { functionCall: { id: "a", name: "check", args: { n: 2 } } },
        ],
        callIds: ["a", "a"],
      },
    };
    expect(pairs(twins(stored))).toEqual({
      calls: [
        ["a", { n: 1 }],
        ["a_2", { n: 2 }],
      ],
      responses: [
        ["a", { output: "one" }],
        ["a_2", { output: "two" }],
      ],
    });
  });
});

describe.each(ROWS)("$label: a saved step with twin call ids, over HTTP", (row) => {
  it("resumes: the strict mock takes the request, and each output goes with its own call", async () => {
    const m = await row.start({ script: [{ text: "resumed ok" }, { text: "again ok" }] });
    mocks.push(m);
    const client = createClient({ provider: row.provider(m), history: twins() });
    await expect(client.chat("go on")).resolves.toBe("resumed ok");
    const body = m.bodies()[0];
    const ids = row.toolCallIds(body);
    expect(ids).toHaveLength(2);
    expect(new Set(ids).size).toBe(2);
    expect(row.toolResults(body)).toEqual([
      { id: ids[0], output: "one" },
      { id: ids[1], output: "two" },
    ]);
    // The history keeps both results as they were (the healer had nothing to repair).
    const tm = client.history[2]!;
    expect(tm.role === "tool" && tm.results.map((r) => r.output)).toEqual(["one", "two"]);
    expectValidHistory(client);
    await expect(client.chat("more")).resolves.toBe("again ok");
  });
});
