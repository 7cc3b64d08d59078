import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { createClient, isToolloopError, type Message, tool } from "../../src/index.js";
import { scriptedProvider } from "../../src/testing.js";
import { historyProblems, recordingLogger } from "./helpers.js";

const echo = tool({ name: "echo", description: "A test tool.", input: v.object({ s: v.string() }), run: ({ s }) => ({ echoed: s }) });

function thrown(fn: () => void): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  return undefined;
}

describe("history: JSON round trip", () => {
  it("JSON.parse(JSON.stringify(history)) resumes with createClient({ history }); the next request has the same messages", async () => {
    const first = scriptedProvider([{ text: "checking", toolCalls: [{ name: "echo", arguments: { s: "hi" }, id: "e1" }] }, "said hi"]);
    const a = createClient({ provider: first, tools: [echo] });
    a.add({ role: "assistant", content: "note", providerData: { provider: "scripted", value: { nested: [1, { x: "y" }] } } });
    await a.chat("say hi");
    const saved = JSON.parse(JSON.stringify(a.history)) as Message[];
    expect(saved).toEqual(a.history);

    const second = scriptedProvider(["resumed"]);
    const b = createClient({ provider: second, tools: [echo], history: saved });
    expect(b.history).toEqual(saved);
    expect(await b.chat("and now?")).toBe("resumed");
    expect(second.requests[0]!.messages).toEqual([...saved, { role: "user", content: "and now?" }]);
  });

  it("client.history is a copy: changing it does not change the conversation", async () => {
    const provider = scriptedProvider(["one", "two"]);
    const client = createClient({ provider });
    await client.chat("a");
    const copy = client.history;
    copy.push({ role: "user", content: "injected" });
    (copy[0] as { content: string }).content = "changed";
    await client.chat("b");
    expect(provider.requests[1]!.messages).toEqual([
      { role: "user", content: "a" },
      { role: "assistant", content: "one" },
      { role: "user", content: "b" },
    ]);
  });

  it("createClient copies the history it is given", async () => {
    const given: Message[] = [{ role: "user", content: "x" }];
    const provider = scriptedProvider(["ok"]);
    const client = createClient({ provider, history: given });
    given.push({ role: "user", content: "later" });
    await client.chat();
    expect(provider.requests[0]!.messages).toEqual([{ role: "user", content: "x" }]);
  });
});

describe("history: add()", () => {
  it("appends without a model call", async () => {
    const provider = scriptedProvider(["answer"]);
    const client = createClient({ provider });
    client.add({ role: "user", content: "context" });
    client.add({ role: "assistant", content: "noted" });
    expect(provider.requests).toHaveLength(0);
    expect(client.history).toEqual([
      { role: "user", content: "context" },
      { role: "assistant", content: "noted" },
    ]);
    await client.chat("question");
    expect(provider.requests[0]!.messages).toEqual([
      { role: "user", content: "context" },
      { role: "assistant", content: "noted" },
      { role: "user", content: "question" },
    ]);
  });

  it.each([
    ["not an object", "hello"],
    ["null", null],
    ["an unknown role", { role: "system", content: "x" }],
    ["a user message without string content", { role: "user", content: 5 }],
    ["an assistant message without content", { role: "assistant" }],
    ["toolCalls that are not an array", { role: "assistant", content: "", toolCalls: {} }],
    ["a tool call without an id", { role: "assistant", content: "", toolCalls: [{ name: "x", arguments: "{}" }] }],
    ["a tool call with object arguments", { role: "assistant", content: "", toolCalls: [{ id: "1", name: "x", arguments: {} }] }],
    ["a tool message without results", { role: "tool" }],
    ["a tool result without output", { role: "tool", results: [{ callId: "1", name: "x" }] }],
  ])("rejects %s with InvalidHistoryError (and changes nothing)", (_what, message) => {
    const client = createClient({ provider: scriptedProvider([]) });
    const err = thrown(() => client.add(message as unknown as Message));
    expect(isToolloopError(err, "invalid_history")).toBe(true);
    expect(client.history).toEqual([]);
  });

  it("validates createClient({ history }) the same way, naming the bad index", () => {
    const err = thrown(() =>
      createClient({ provider: scriptedProvider([]), history: [{ role: "user", content: "ok" }, { role: "bot" } as unknown as Message] }),
    );
    expect(isToolloopError(err, "invalid_history")).toBe(true);
    expect((err as Error).message).toContain("history[1]");
  });

  it("keeps only the fields of the message model", () => {
    const client = createClient({ provider: scriptedProvider([]) });
    client.add({ role: "user", content: "x", extra: "dropped" } as unknown as Message);
    expect(client.history).toEqual([{ role: "user", content: "x" }]);
  });
});

describe("history healer", () => {
  it("repairs a history saved mid-run (tool calls without results) before the next request", async () => {
    const saved: Message[] = [
      { role: "user", content: "do two things" },
      {
        role: "assistant",
        content: "",
        toolCalls: [
          { id: "a", name: "echo", arguments: '{"s":"1"}' },
          { id: "b", name: "echo", arguments: '{"s":"2"}' },
        ],
      },
    ];
    const provider = scriptedProvider(["ok"]);
    const logger = recordingLogger();
    const client = createClient({ provider, tools: [echo], history: JSON.parse(JSON.stringify(saved)), logger });
    await client.chat("are you there?");
    const sent = provider.requests[0]!.messages;
    expect(historyProblems(sent)).toEqual([]);
    expect(sent).toEqual([
      saved[0],
      saved[1],
      {
        role: "tool",
        results: [
          { callId: "a", name: "echo", output: '{"error":"cancelled"}', isError: true },
          { callId: "b", name: "echo", output: '{"error":"cancelled"}', isError: true },
        ],
      },
      { role: "user", content: "are you there?" },
    ]);
    expect(historyProblems(client.history)).toEqual([]);
    expect(logger.entries.some((e) => e.level === "warn" && e.message === "history repaired")).toBe(true);
  });

  it("fills missing results, drops results for unknown calls and puts results in call order", async () => {
    const provider = scriptedProvider(["ok"]);
    const client = createClient({
      provider,
      history: [
        { role: "user", content: "q" },
        {
          role: "assistant",
          content: "",
          toolCalls: [
            { id: "a", name: "echo", arguments: "{}" },
            { id: "b", name: "echo", arguments: "{}" },
            { id: "c", name: "echo", arguments: "{}" },
          ],
        },
        {
          role: "tool",
          results: [
            { callId: "c", name: "echo", output: "C", isError: false },
            { callId: "zzz", name: "echo", output: "stray", isError: false },
            { callId: "a", name: "echo", output: "A", isError: false },
          ],
        },
      ],
    });
    await client.chat("next");
    const sent = provider.requests[0]!.messages;
    expect(historyProblems(sent)).toEqual([]);
    expect(sent[2]).toEqual({
      role: "tool",
      results: [
        { callId: "a", name: "echo", output: "A", isError: false },
        { callId: "b", name: "echo", output: '{"error":"cancelled"}', isError: true },
        { callId: "c", name: "echo", output: "C", isError: false },
      ],
    });
  });

  it("drops a tool message that answers nothing", async () => {
    const provider = scriptedProvider(["ok"]);
    const client = createClient({
      provider,
      history: [
        { role: "user", content: "q" },
        { role: "tool", results: [{ callId: "x", name: "echo", output: "orphan", isError: false }] },
        { role: "assistant", content: "a" },
      ],
    });
    await client.chat("next");
    expect(provider.requests[0]!.messages).toEqual([
      { role: "user", content: "q" },
      { role: "assistant", content: "a" },
      { role: "user", content: "next" },
    ]);
  });

  it("repairs tool calls added with add() before the next request", async () => {
    const provider = scriptedProvider(["ok"]);
    const client = createClient({ provider });
    client.add({ role: "user", content: "q" });
    client.add({ role: "assistant", content: "", toolCalls: [{ id: "a", name: "echo", arguments: "{}" }] });
    client.add({ role: "user", content: "never mind" });
    await client.chat();
    const sent = provider.requests[0]!.messages;
    expect(historyProblems(sent)).toEqual([]);
    expect(sent.map((m) => m.role)).toEqual(["user", "assistant", "tool", "user"]);
  });

  it("leaves a valid history untouched (and silent)", async () => {
    const valid: Message[] = [
      { role: "user", content: "q" },
      { role: "assistant", content: "", toolCalls: [{ id: "a", name: "echo", arguments: "{}" }] },
      { role: "tool", results: [{ callId: "a", name: "echo", output: "A", isError: false }] },
      { role: "assistant", content: "done" },
    ];
    const provider = scriptedProvider(["ok"]);
    const logger = recordingLogger();
    await createClient({ provider, history: valid, logger }).chat("more");
    expect(provider.requests[0]!.messages).toEqual([...valid, { role: "user", content: "more" }]);
    expect(logger.entries.filter((e) => e.message === "history repaired")).toEqual([]);
  });
});
