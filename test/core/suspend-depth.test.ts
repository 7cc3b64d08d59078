// Deep values from outside are refused where they come in, with the typed error of where they
// came from, instead of a raw RangeError later or a history that can never be saved again
// (issue 24, red-team 4): a decision's answer or edited input (InvalidDecisionError), a loaded
// or add()ed message's providerData or pending state (InvalidHistoryError). After each refusal
// the history is as it was and still serialises with JSON.stringify.
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { type Client, createClient, jsonTool, type Message, suspension, tool } from "../../src/index.js";
import { scriptedProvider } from "../../src/testing.js";
import { historyProblems } from "./helpers.js";

const DEEP = 10_000;

/** A value nested `n` levels: arrays or objects, alternating, so both kinds are walked. */
function deep(n: number): unknown {
  let value: unknown = "bottom";
  for (let i = 0; i < n; i++) value = i % 2 ? [value] : { a: value };
  return value;
}

/** The history serialises, and is what it was before the refused call. */
function unchanged(client: Client, before: string) {
  const now = JSON.stringify(client.history);
  expect(now).toBe(before);
  expect(historyProblems(client.history)).toEqual([]);
}

const waits = suspension({ unsigned: true });

describe("decisions: a deep answer or edited input is an InvalidDecisionError, and nothing runs", () => {
  function asking(ran: string[]) {
    const ask = jsonTool({
      name: "ask",
      description: "Asks.",
      parameters: { type: "object", properties: {} },
      run: async (_input, ctx) => {
        const a = await ctx.requestInput!({ message: "Anything?" });
        ran.push("after the answer");
        return typeof a;
      },
    });
    return createClient({ provider: scriptedProvider([{ toolCalls: [{ name: "ask", id: "q" }] }, "ok"]), tools: [ask], suspension: waits });
  }

  function paying(ran: string[]) {
    const pay = jsonTool({
      name: "pay",
      description: "Pays.",
      parameters: { type: "object" },
      needsApproval: true,
      run: async () => (ran.push("paid"), "paid"),
    });
    return createClient({
      provider: scriptedProvider([{ toolCalls: [{ name: "pay", arguments: { amount: 3 }, id: "p" }] }, "ok"]),
      tools: [pay],
      suspension: waits,
    });
  }

  it(`an answer nested ${DEEP} deep`, async () => {
    const ran: string[] = [];
    const client = asking(ran);
    await client.run("x");
    const before = JSON.stringify(client.history);
    await expect(client.resume([{ callId: "q", answer: deep(DEEP) }])).rejects.toMatchObject({
      code: "invalid_decision",
      callId: "q",
      message: expect.stringContaining("the answer must be a JSON value nested at most 128 levels deep"),
    });
    unchanged(client, before);
    expect(ran).toEqual([]);
    expect(client.pending.map((p) => p.callId)).toEqual(["q"]);
    // The same call still takes a good answer.
    expect((await client.resume([{ callId: "q", answer: deep(100) }])).status).toBe("done");
    expect(ran).toEqual(["after the answer"]);
  });

  it(`edited input nested ${DEEP} deep`, async () => {
    const ran: string[] = [];
    const client = paying(ran);
    await client.run("x");
    const before = JSON.stringify(client.history);
    await expect(client.resume([{ callId: "p", approved: true, input: { amount: deep(DEEP) } }])).rejects.toMatchObject({
      code: "invalid_decision",
      message: expect.stringContaining("the edited input must be a JSON value"),
    });
    unchanged(client, before);
    expect(ran).toEqual([]);
  });

  it("a cyclic answer, a BigInt answer and an undefined one are refused the same way (none could be saved)", async () => {
    const client = asking([]);
    await client.run("x");
    const before = JSON.stringify(client.history);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    for (const answer of [cyclic, 10n, undefined]) {
      await expect(client.resume([{ callId: "q", answer }])).rejects.toMatchObject({ code: "invalid_decision" });
    }
    unchanged(client, before);
  });

  it("an answer the handler asks past is kept in history as JSON that loads again", async () => {
    const twice = tool({
      name: "twice",
      description: "Asks twice.",
      input: v.object({}),
      run: async (_i, ctx) => JSON.stringify([await ctx.requestInput!({ message: "a?" }), await ctx.requestInput!({ message: "b?" })]),
    });
    const provider = scriptedProvider([{ toolCalls: [{ name: "twice", id: "t" }] }, "ok"]);
    const client = createClient({ provider, tools: [twice], suspension: waits });
    await client.run("x");
    await client.resume([{ callId: "t", answer: deep(120) }]);
    const saved = JSON.parse(JSON.stringify(client.history)) as Message[];
    const again = createClient({ provider, tools: [twice], suspension: waits, history: saved });
    expect((await again.resume([{ callId: "t", answer: "b" }])).status).toBe("done");
  });
});

describe("loaded history: deep providerData or pending state is an InvalidHistoryError", () => {
  const call = (providerData?: unknown): Message[] => [
    { role: "user", content: "x" },
    { role: "assistant", content: "", toolCalls: [{ id: "c", name: "pay", arguments: "{}" }], ...(providerData !== undefined && { providerData }) } as Message,
  ];
  const waiting = (pending: Record<string, unknown>): Message[] => [
    ...call(),
    { role: "tool", results: [{ callId: "c", name: "pay", output: "", isError: false, pending: { kind: "input", message: "?", ...pending } }] } as Message,
  ];
  const loaded: Record<string, Message[]> = {
    [`providerData nested ${DEEP} deep`]: [...call(deep(DEEP)), { role: "tool", results: [{ callId: "c", name: "pay", output: "ok", isError: false }] }],
    [`pending.schema nested ${DEEP} deep`]: waiting({ schema: deep(DEEP) }),
    [`pending.answers nested ${DEEP} deep`]: waiting({ answers: [deep(DEEP)] }),
  };

  for (const [name, history] of Object.entries(loaded)) {
    it(`createClient({ history }) with ${name}`, () => {
      let err: unknown;
      try {
        createClient({ provider: scriptedProvider([]), suspension: waits, history });
      } catch (e) {
        err = e;
      }
      expect(err).toMatchObject({ code: "invalid_history", message: expect.stringMatching(/must be JSON nested at most 512 levels deep/) });
    });

    it(`client.add() of its messages with ${name}: refused, the history unchanged and serialisable`, () => {
      const client = createClient({ provider: scriptedProvider([]), suspension: waits, history: [{ role: "user", content: "hello" }] });
      const before = JSON.stringify(client.history);
      expect(() => {
        for (const m of history.slice(1)) client.add(m);
      }).toThrow(expect.objectContaining({ code: "invalid_history" }));
      // add() takes a message whole or not at all; the assistant message before the deep one may have gone in.
      expect(() => JSON.stringify(client.history)).not.toThrow();
      expect(JSON.stringify(client.history.slice(0, 1))).toBe(before.slice(0, -1) + "]");
    });
  }

  it("a cyclic or non-JSON providerData from add() is refused, not a DataCloneError", () => {
    const client = createClient({ provider: scriptedProvider([]) });
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    for (const providerData of [cyclic, { f: 1n }, () => 1]) {
      expect(() => client.add({ role: "assistant", content: "", providerData } as unknown as Message)).toThrow(
        expect.objectContaining({ code: "invalid_history" }),
      );
    }
    expect(client.history).toEqual([]);
  });

  it("values within the bound load as they are (a model's own providerData is cut at 512 on arrival)", () => {
    const history: Message[] = [...call(deep(300)), { role: "tool", results: [{ callId: "c", name: "pay", output: "ok", isError: false }] }];
    const client = createClient({ provider: scriptedProvider([]), history });
    expect(client.history).toEqual(history);
    const pending = waiting({ schema: deep(300), answers: [deep(100)] });
    expect(createClient({ provider: scriptedProvider([]), suspension: waits, history: pending }).history).toEqual(pending);
  });
});
