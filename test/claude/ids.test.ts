// Tool-call ids on the wire: unique over the whole request and never two neutral ids on
// one wire id, whatever made them (another provider, a server that says call_0 every step).

import * as v from "valibot";
import { afterEach, describe, expect, it } from "vitest";
import { toWireMessages } from "../../adapters/claude/encode.js";
import { claude } from "../../adapters/claude/index.js";
import { createClient, type Message, tool } from "../../src/index.js";
import { type ClaudeMock, startClaudeMock, validateRequest } from "../mock/claude.js";

const mocks: ClaudeMock[] = [];
afterEach(async () => {
  await Promise.all(mocks.splice(0).map((m) => m.close()));
});

const echo = tool({ name: "echo", description: "Echo.", input: v.object({ n: v.number() }), run: ({ n }) => `n=${n}` });

function ids(messages: ReturnType<typeof toWireMessages>) {
  return messages.flatMap((m) => m.content.flatMap((b) => (b.type === "tool_use" ? [b.id] : b.type === "tool_result" ? [`->${String(b.tool_use_id)}`] : [])));
}

describe("call ids on the wire", () => {
  it("the mock refuses a request whose tool_use ids repeat across turns (the check is real)", () => {
    const messages = [
      { role: "user", content: "go" },
      { role: "assistant", content: [{ type: "tool_use", id: "call_0", name: "echo", input: {} }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "call_0", content: "a" }] },
      { role: "assistant", content: [{ type: "tool_use", id: "call_0", name: "echo", input: {} }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "call_0", content: "b" }] },
    ];
    expect(validateRequest({ model: "m", max_tokens: 1, messages })).toMatch(/`tool_use` ids must be unique/);
  });

  it("an id reused in a later step gets a fresh wire id, and its result follows it", () => {
    const history: Message[] = [
      { role: "user", content: "go" },
      { role: "assistant", content: "", toolCalls: [{ id: "call_0", name: "echo", arguments: '{"n":1}' }] },
      { role: "tool", results: [{ callId: "call_0", name: "echo", output: "a", isError: false }] },
      { role: "assistant", content: "", toolCalls: [{ id: "call_0", name: "echo", arguments: '{"n":2}' }] },
      { role: "tool", results: [{ callId: "call_0", name: "echo", output: "b", isError: false }] },
    ];
    const messages = toWireMessages(history);
    expect(ids(messages)).toEqual(["call_0", "->call_0", "call_0_2", "->call_0_2"]);
    expect(validateRequest({ model: "m", max_tokens: 1, messages })).toBeUndefined();
    // the prefix keeps its ids when the history grows (byte-stable for prompt caching)
    expect(toWireMessages(history.slice(0, 3))).toEqual(messages.slice(0, 3));
  });

  it("sanitising is injective: call.1, call:1 and call_1 get three wire ids", () => {
    const history: Message[] = [
      { role: "user", content: "go" },
      {
        role: "assistant",
        content: "",
        toolCalls: [
          { id: "call.1", name: "echo", arguments: "{}" },
          { id: "call:1", name: "echo", arguments: "{}" },
          { id: "call_1", name: "echo", arguments: "{}" },
        ],
      },
      {
        role: "tool",
        results: [
          { callId: "call.1", name: "echo", output: "a", isError: false },
          { callId: "call:1", name: "echo", output: "b", isError: false },
          { callId: "call_1", name: "echo", output: "c", isError: false },
        ],
      },
    ];
    const messages = toWireMessages(history);
    const wire = ids(messages);
    expect(new Set(wire.slice(0, 3)).size).toBe(3);
    expect(wire.slice(3)).toEqual(wire.slice(0, 3).map((id) => `->${id}`));
    expect(validateRequest({ model: "m", max_tokens: 1, messages })).toBeUndefined();
  });

  it("a stored Claude turn whose id was used before is renamed too, the rest of it kept", () => {
    const stored = (id: string) => ({
      provider: "claude",
      value: [
        { type: "text", text: "t" },
        { type: "tool_use", id, name: "echo", input: { n: 1 }, caller: { type: "direct" } },
      ],
    });
    const history: Message[] = [
      { role: "user", content: "go" },
      { role: "assistant", content: "t", toolCalls: [{ id: "toolu_x", name: "echo", arguments: '{"n":1}' }], providerData: stored("toolu_x") },
      { role: "tool", results: [{ callId: "toolu_x", name: "echo", output: "a", isError: false }] },
      { role: "assistant", content: "t", toolCalls: [{ id: "toolu_x", name: "echo", arguments: '{"n":1}' }], providerData: stored("toolu_x") },
      { role: "tool", results: [{ callId: "toolu_x", name: "echo", output: "b", isError: false }] },
    ];
    const messages = toWireMessages(history);
    expect(messages[3]!.content[1]).toEqual({ type: "tool_use", id: "toolu_x_2", name: "echo", input: { n: 1 }, caller: { type: "direct" } });
    expect(ids(messages)).toEqual(["toolu_x", "->toolu_x", "toolu_x_2", "->toolu_x_2"]);
  });

  it("over HTTP: a server that says call_0 every step, and a history from another provider, both work", async () => {
    const mock = await startClaudeMock({
      script: [
        { toolCalls: [{ id: "call_0", name: "echo", input: { n: 1 } }] },
        { toolCalls: [{ id: "call_0", name: "echo", input: { n: 2 } }] },
        { text: "done" },
        { text: "again" },
      ],
    });
    mocks.push(mock);
    const history: Message[] = [
      { role: "user", content: "earlier" },
      {
        role: "assistant",
        content: "",
        toolCalls: [
          { id: "call.1", name: "echo", arguments: '{"n":0}' },
          { id: "call:1", name: "echo", arguments: '{"n":0}' },
        ],
      },
      {
        role: "tool",
        results: [
          { callId: "call.1", name: "echo", output: "x", isError: false },
          { callId: "call:1", name: "echo", output: "y", isError: false },
        ],
      },
      { role: "assistant", content: "ok" },
    ];
    const client = createClient({ provider: claude({ apiKey: "k", model: "m", baseURL: mock.url, maxRetries: 0 }), tools: [echo], history });
    expect(await client.chat("go")).toBe("done");
    expect(await client.chat("more")).toBe("again");
    const last = mock.requests.at(-1)!.body as { messages: { content: { type: string; id?: string }[] }[] };
    const wire = last.messages.flatMap((m) => m.content.filter((b) => b.type === "tool_use").map((b) => b.id));
    expect(new Set(wire).size).toBe(wire.length);
    expect(wire).toHaveLength(4);
  });
});

describe("stream: stop_reason in message_start", () => {
  const frame = (data: Record<string, unknown>) => `event: ${String(data.type)}\ndata: ${JSON.stringify(data)}\n\n`;
  const startOnly = (stop: string, content: unknown[]) => [
    frame({
      type: "message_start",
      message: { id: "msg_1", type: "message", role: "assistant", content, stop_reason: stop, usage: { input_tokens: 4, output_tokens: 3 } },
    }),
    frame({ type: "message_stop" }),
  ];

  it("a message_start that already says tool_use is a tool-calls turn", async () => {
    const mock = await startClaudeMock();
    mocks.push(mock);
    mock.enqueue({ sse: startOnly("tool_use", [{ type: "tool_use", id: "toolu_1", name: "echo", input: { n: 1 } }]) });
    const r = await claude({ apiKey: "k", model: "m", baseURL: mock.url, maxRetries: 0 }).generate({
      messages: [{ role: "user", content: "go" }],
      tools: [],
      webSearch: false,
      onDelta: () => {},
    });
    expect(r.finishReason).toBe("tool-calls");
    expect(r.toolCalls).toEqual([{ id: "toolu_1", name: "echo", arguments: '{"n":1}' }]);
  });

  it("a pause_turn that arrives in message_start is still continued", async () => {
    const mock = await startClaudeMock();
    mocks.push(mock);
    mock.enqueue({ sse: startOnly("pause_turn", [{ type: "text", text: "Searching" }]) });
    mock.enqueue({ sse: startOnly("end_turn", [{ type: "text", text: " done." }]) });
    const r = await claude({ apiKey: "k", model: "m", baseURL: mock.url, maxRetries: 0 }).generate({
      messages: [{ role: "user", content: "go" }],
      tools: [],
      webSearch: false,
      onDelta: () => {},
    });
    expect(mock.requests).toHaveLength(2);
    expect(mock.requests[1]!.body.messages.at(-1)).toEqual({ role: "assistant", content: [{ type: "text", text: "Searching" }] });
    expect(r.text).toBe("Searching done.");
    expect(r.finishReason).toBe("stop");
  });
});
