import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { createClient, type Message, type Provider, tool } from "../../src/index.js";
import { scriptedProvider } from "../../src/testing.js";
import { historyProblems, settle, ticks } from "./helpers.js";

const slow = tool({
  name: "slow",
  description: "A test tool.",
  input: v.object({ who: v.string() }),
  run: async ({ who }) => {
    await ticks(20);
    return `slow ${who}`;
  },
});

/** Answers each prompt with one tool call, then with "answer to <prompt>". */
const echoModel = (): Provider & { seen: Message[][] } => {
  const seen: Message[][] = [];
  let id = 0;
  return {
    name: "echo-model",
    seen,
    async generate(req) {
      seen.push(structuredClone([...req.messages]));
      await ticks(5);
      const last = req.messages.at(-1)!;
      if (last.role === "user") {
        return {
          text: "",
          toolCalls: [{ id: `t${++id}`, name: "slow", arguments: JSON.stringify({ who: last.content }) }],
          finishReason: "tool-calls",
          usage: { inputTokens: 1, outputTokens: 1 },
        };
      }
      const prompt = [...req.messages].reverse().find((m) => m.role === "user") as { content: string };
      return { text: `answer to ${prompt.content}`, toolCalls: [], finishReason: "stop", usage: { inputTokens: 1, outputTokens: 1 } };
    },
  };
};

describe("calls on one client are serialised", () => {
  it("two concurrent chat() calls do not interleave their history", async () => {
    const provider = echoModel();
    const client = createClient({ provider, tools: [slow] });
    const [a, b] = await Promise.all([client.chat("A"), client.chat("B")]);
    expect([a, b]).toEqual(["answer to A", "answer to B"]);
    const h = client.history;
    expect(historyProblems(h)).toEqual([]);
    expect(h.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant", "user", "assistant", "tool", "assistant"]);
    expect(h[0]).toEqual({ role: "user", content: "A" });
    expect(h[4]).toEqual({ role: "user", content: "B" });
    // B's first request saw A's whole exchange, nothing half-done
    expect(provider.seen[2]).toEqual(h.slice(0, 5));
  });

  it("chat, stream and ask queue in call order", async () => {
    const provider = scriptedProvider(["one", "two", '{"n":3}']);
    const client = createClient({ provider });
    const first = client.chat("1");
    const streamed = (async () => {
      let text = "";
      for await (const e of client.stream("2")) if (e.type === "finish") text = e.text;
      return text;
    })();
    const asked = client.ask("3", v.object({ n: v.number() }));
    expect(await Promise.all([first, streamed, asked])).toEqual(["one", "two", { n: 3 }]);
    expect(client.history.filter((m) => m.role === "user").map((m) => (m as { content: string }).content)).toEqual(["1", "2", "3"]);
  });

  it("a failing call does not block the ones queued after it", async () => {
    const provider = scriptedProvider([{ error: new Error("down") }, "fine"]);
    const client = createClient({ provider });
    const [a, b] = await Promise.all([settle(client.chat("x")), settle(client.chat("y"))]);
    expect(a).toMatchObject({ ok: false });
    expect(b).toEqual({ ok: true, value: "fine" });
  });

  it("an add() while the tools run lands after the step's results, which are kept", async () => {
    const provider = echoModel();
    const client = createClient({ provider, tools: [slow] });
    const running = client.chat("A");
    await ticks(12); // the model asked for the tool, which is still running
    expect(client.history.map((m) => m.role)).toEqual(["user", "assistant"]);
    client.add({ role: "user", content: "note" });
    await running;
    const h = client.history;
    expect(historyProblems(h)).toEqual([]);
    expect(h.slice(0, 4).map((m) => m.role)).toEqual(["user", "assistant", "tool", "user"]);
    expect(h[2]).toMatchObject({ results: [{ output: "slow A", isError: false }] });
    expect(h[3]).toEqual({ role: "user", content: "note" });
    // the model's next request already saw the note, after the results
    expect(provider.seen[1]).toEqual(h.slice(0, 4));
  });
});

describe("add() and abort while a call is in flight or waiting", () => {
  it("an add() during a model request lands after the answer it could not have seen", async () => {
    const provider = echoModel();
    const client = createClient({ provider, tools: [slow] });
    const running = client.chat("A");
    await ticks(2); // the first request is out
    expect(client.history.map((m) => m.role)).toEqual(["user"]);
    client.add({ role: "user", content: "note" });
    await running;
    const h = client.history;
    expect(historyProblems(h)).toEqual([]);
    // The tool call answered "A" only; the note follows the call and its results.
    expect(provider.seen[0]).toEqual([{ role: "user", content: "A" }]);
    expect(h.slice(0, 4).map((m) => m.role)).toEqual(["user", "assistant", "tool", "user"]);
    expect(h[3]).toEqual({ role: "user", content: "note" });
  });

  it("an ask() waiting its turn rejects at once when its signal aborts, as chat() does", async () => {
    const client = createClient({ provider: echoModel(), tools: [slow] });
    const order: string[] = [];
    const first = client.chat("long").then(() => order.push("chat done"));
    const controller = new AbortController();
    const asked = settle(client.ask("q", v.object({ n: v.number() }), { signal: controller.signal })).then((r) => (order.push("ask settled"), r));
    controller.abort(new Error("stop"));
    expect(await asked).toMatchObject({ ok: false, error: { message: "stop" } });
    await first;
    expect(order).toEqual(["ask settled", "chat done"]);
    expect(historyProblems(client.history)).toEqual([]);
    expect(client.history.some((m) => m.role === "user" && m.content === "q")).toBe(false);
  });
});

describe("createClient", () => {
  it("needs a provider", () => {
    expect(() => createClient({} as never)).toThrow(expect.objectContaining({ code: "invalid_options" }));
    expect(() => createClient({ provider: { name: "x" } } as never)).toThrow(expect.objectContaining({ code: "invalid_options" }));
  });

  it("lastRun is undefined before any run", () => {
    expect(createClient({ provider: scriptedProvider([]) }).lastRun).toBeUndefined();
  });
});
