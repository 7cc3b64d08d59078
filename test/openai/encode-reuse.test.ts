// Responses: each assistant turn is encoded once and its items reused on later requests
// (responses-encode.ts assistantItems). The reuse must never change what is sent.
import { describe, expect, it } from "vitest";
import { encodeInput, type ResponsesSettings } from "../../adapters/openai/responses-encode.js";
import type { AssistantMessage, Message } from "../../src/index.js";

const settings: ResponsesSettings = { provider: "openai", model: "m", store: false, includeEncryptedReasoning: false };
const call = (id: string, n: number) => ({ id, name: "echo", arguments: `{"n":${n}}` });
const result = (callId: string, output: string) => ({ role: "tool" as const, results: [{ callId, name: "echo", output, isError: false }] });
const fresh = (history: Message[], s = settings) => encodeInput(structuredClone(history), s);
const replayed = (...calls: { id: string; n: number }[]) => ({
  provider: "openai",
  value: calls.map((c) => ({ id: `fc_${c.id}`, type: "function_call", status: "completed", call_id: c.id, name: "echo", arguments: `{"n":${c.n}}` })),
});

describe("Responses: assistant turns encoded once", () => {
  it("a second encoding of the same history equals a fresh one and reuses the turn's items", () => {
    const history: Message[] = [
      { role: "user", content: "go" },
      { role: "assistant", content: "", toolCalls: [call("a", 1), call("b", 2)], providerData: replayed({ id: "a", n: 1 }, { id: "b", n: 2 }) },
      { role: "tool", results: [...result("a", "x").results, ...result("b", "y").results] },
      { role: "assistant", content: "looking", toolCalls: [call("c", 3)] },
      result("c", "z"),
    ];
    const first = encodeInput(history, settings);
    const again = encodeInput(history, settings);
    expect(again).toEqual(first);
    expect(again).toEqual(fresh(history));
    expect(again).not.toBe(first);
    expect(again[1]).toBe(first[1]);
  });

  it("an assistant turn edited in place is encoded again", () => {
    const m: AssistantMessage = { role: "assistant", content: "", toolCalls: [call("a", 1)] };
    const history: Message[] = [{ role: "user", content: "go" }, m, result("a", "x")];
    const check = () => {
      const input = encodeInput(history, settings);
      expect(input).toEqual(fresh(history));
      return input;
    };
    check();
    m.toolCalls![0]!.arguments = '{"n":5}'; // a call object changed
    expect(check()[1]).toMatchObject({ arguments: '{"n":5}' });
    m.toolCalls![0]!.name = "other";
    expect(check()[1]).toMatchObject({ name: "other" });
    m.toolCalls = [call("a", 7), call("b", 8)]; // the call list replaced (a decision's edit)
    history[2] = { role: "tool", results: [...result("a", "x").results, ...result("b", "y").results] };
    expect(check().filter((i) => i.type === "function_call")).toHaveLength(2);
    m.providerData = replayed({ id: "a", n: 7 }, { id: "b", n: 8 }); // replayed from now on
    expect(check()[1]).toEqual({ type: "function_call", call_id: "a", name: "echo", arguments: '{"n":7}' });
    m.providerData = { provider: "another", value: m.providerData.value }; // not this provider's: not replayed
    check();
    m.content = "now with text";
    expect(check()[1]).toEqual({ role: "assistant", content: "now with text" });
  });

  it("depends on the provider's settings and on the calls' wire ids", () => {
    const m: AssistantMessage = { role: "assistant", content: "", toolCalls: [call("call_0", 1)], providerData: replayed({ id: "call_0", n: 1 }) };
    const history: Message[] = [{ role: "user", content: "go" }, m, result("call_0", "a")];
    encodeInput(history, settings);
    const stored = { ...settings, store: true };
    expect(encodeInput(history, stored)).toEqual(fresh(history, stored));
    expect(encodeInput(history, stored)[1]).toHaveProperty("id", "fc_call_0");
    // the same message after a turn that takes its id first: renamed on the wire, as without reuse
    const reordered: Message[] = [
      { role: "user", content: "go" },
      { role: "assistant", content: "", toolCalls: [call("call_0", 9)] },
      result("call_0", "z"),
      { role: "user", content: "again" },
      m,
      result("call_0", "a"),
    ];
    const input = encodeInput(reordered, settings);
    expect(input).toEqual(fresh(reordered));
    expect(input.filter((i) => i.type === "function_call").map((i) => i.call_id)).toEqual(["call_0", "call_0_2"]);
  });
});
