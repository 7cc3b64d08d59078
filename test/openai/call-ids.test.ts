// Tool-call ids on the wire are unique over the whole conversation a request carries, on both
// OpenAI APIs: servers that number calls call_0 in every step, and histories moved from
// another provider, would otherwise send the same id twice (issue 11).

import * as v from "valibot";
import { afterEach, describe, expect, it } from "vitest";
import { wireCallIds } from "../../adapters/openai/call-ids.js";
import { openai, openaiChat, openaiCompatible } from "../../adapters/openai/index.js";
import { createClient, type Message, tool } from "../../src/index.js";
import { type OpenAIMock, startOpenAIChatMock } from "../mock/openai-chat.js";
import { startOpenAIResponsesMock } from "../mock/openai-responses.js";

const KEY = "sk-test-callids-7a7a7a7a";
const mocks: OpenAIMock[] = [];
afterEach(async () => {
  await Promise.all(mocks.splice(0).map((m) => m.close()));
});

const echo = tool({ name: "echo", description: "Echo.", input: v.object({ n: v.number() }), run: async ({ n }) => `echo ${n}` });

type ChatBody = { messages: { role: string; tool_calls?: { id: string }[]; tool_call_id?: string }[] };
type ResponsesBody = { input: { type?: string; call_id?: string; output?: unknown }[] };

/** Every call id once, every result right after (Chat) / somewhere after (Responses) its call. */
function chatIds(b: ChatBody): { calls: string[]; results: string[] } {
  return {
    calls: b.messages.flatMap((m) => (m.tool_calls ?? []).map((c) => c.id)),
    results: b.messages.filter((m) => m.role === "tool").map((m) => m.tool_call_id!),
  };
}
function responsesIds(b: ResponsesBody): { calls: string[]; results: string[] } {
  return {
    calls: b.input.filter((i) => i.type === "function_call").map((i) => i.call_id!),
    results: b.input.filter((i) => i.type === "function_call_output").map((i) => i.call_id!),
  };
}

const callZeroEveryStep = [
  { toolCalls: [{ id: "call_0", name: "echo", input: { n: 1 } }] },
  { toolCalls: [{ id: "call_0", name: "echo", input: { n: 2 } }] },
  {
    toolCalls: [
      { id: "call_0", name: "echo", input: { n: 3 } },
      { id: "call_0", name: "echo", input: { n: 4 } },
    ],
  },
  { text: "done" },
];

describe("tool-call ids are unique over the conversation on the wire", () => {
  it("Chat Completions (openaiCompatible): a server that says call_0 every step", async () => {
    const m = await startOpenAIChatMock({ script: callZeroEveryStep });
    mocks.push(m);
    const client = createClient({ provider: openaiCompatible({ baseURL: m.url, model: "local", maxRetries: 0 }), tools: [echo] });
    expect(await client.chat("go")).toBe("done");
    const last = chatIds(m.requests[3]!.body as ChatBody);
    expect(new Set(last.calls).size).toBe(4);
    expect(last.results).toEqual(last.calls);
    expect(last.calls[0]).toBe("call_0"); // the first keeps its id
    // each result still pairs with its own call: the outputs follow in order
    const outputs = (m.requests[3]!.body as { messages: { role: string; content: string }[] }).messages.filter((x) => x.role === "tool").map((x) => x.content);
    expect(outputs).toEqual(["echo 1", "echo 2", "echo 3", "echo 4"]);
    // the history keeps what the model said; only the request renames
    const historyIds = client.history.flatMap((x) => (x.role === "assistant" ? (x.toolCalls ?? []).map((c) => c.id) : []));
    expect(historyIds.slice(0, 3)).toEqual(["call_0", "call_0", "call_0"]);
  });

  it("Responses: the same, with replayed function_call items renamed too", async () => {
    const m = await startOpenAIResponsesMock({ apiKey: KEY, script: callZeroEveryStep });
    mocks.push(m);
    const client = createClient({ provider: openai({ apiKey: KEY, baseURL: m.url, model: "gpt-5-mini", maxRetries: 0 }), tools: [echo] });
    for await (const _ of client.stream("go")) void _;
    const b = m.requests[3]!.body as ResponsesBody;
    const last = responsesIds(b);
    expect(new Set(last.calls).size).toBe(4);
    expect(last.results).toEqual(last.calls);
    const outputs = b.input.filter((i) => i.type === "function_call_output").map((i) => i.output);
    expect(outputs).toEqual(["echo 1", "echo 2", "echo 3", "echo 4"]);
  });

  it("a history moved from another provider with twin ids is renamed consistently", async () => {
    const history: Message[] = [
      { role: "user", content: "go" },
      {
        role: "assistant",
        content: "",
        toolCalls: [{ id: "toolu_1", name: "echo", arguments: '{"n":1}' }],
        providerData: { provider: "claude", value: [{ type: "thinking" }] },
      },
      { role: "tool", results: [{ callId: "toolu_1", name: "echo", output: "one", isError: false }] },
      {
        role: "assistant",
        content: "",
        toolCalls: [
          { id: "toolu_1", name: "echo", arguments: '{"n":2}' },
          { id: "", name: "echo", arguments: '{"n":3}' },
        ],
      },
      {
        role: "tool",
        results: [
          { callId: "toolu_1", name: "echo", output: "two", isError: false },
          { callId: "", name: "echo", output: "three", isError: false },
        ],
      },
    ];
    const chat = await startOpenAIChatMock({ apiKey: KEY, script: [{ text: "ok" }] });
    const resp = await startOpenAIResponsesMock({ apiKey: KEY, script: [{ text: "ok" }] });
    mocks.push(chat, resp);
    await createClient({ provider: openaiChat({ apiKey: KEY, baseURL: chat.url, model: "gpt-4o", maxRetries: 0 }), history }).chat("again");
    await createClient({ provider: openai({ apiKey: KEY, baseURL: resp.url, model: "gpt-4o", maxRetries: 0 }), history }).chat("again");
    for (const ids of [chatIds(chat.requests[0]!.body as ChatBody), responsesIds(resp.requests[0]!.body as ResponsesBody)]) {
      expect(ids.calls).toEqual(["toolu_1", "toolu_1_2", "call_2"]);
      expect(ids.results).toEqual(ids.calls);
    }
  });

  it("builds nothing when the ids are already unique", () => {
    const history: Message[] = [
      { role: "assistant", content: "", toolCalls: [{ id: "a", name: "echo", arguments: "{}" }] },
      { role: "tool", results: [{ callId: "a", name: "echo", output: "", isError: false }] },
      { role: "assistant", content: "", toolCalls: [{ id: "b", name: "echo", arguments: "{}" }] },
    ];
    expect(wireCallIds(history)).toBeUndefined();
  });

  it("a fresh id never takes one a later step uses", () => {
    const history: Message[] = [
      { role: "assistant", content: "", toolCalls: [{ id: "x", name: "echo", arguments: "{}" }] },
      { role: "tool", results: [{ callId: "x", name: "echo", output: "", isError: false }] },
      { role: "assistant", content: "", toolCalls: [{ id: "x", name: "echo", arguments: "{}" }] },
      { role: "tool", results: [{ callId: "x", name: "echo", output: "", isError: false }] },
      { role: "assistant", content: "", toolCalls: [{ id: "x_2", name: "echo", arguments: "{}" }] },
      { role: "tool", results: [{ callId: "x_2", name: "echo", output: "", isError: false }] },
    ];
    const ids = wireCallIds(history)!;
    expect([ids.get(history[0]!), ids.get(history[2]!), ids.get(history[4]!)]).toEqual([["x"], ["x_3"], ["x_2"]]);
    expect([ids.get(history[1]!), ids.get(history[3]!), ids.get(history[5]!)]).toEqual([["x"], ["x_3"], ["x_2"]]);
  });
});
