// Each assistant turn is encoded once and its blocks reused on later requests (encode.ts
// encodedTurn): the reuse must never change what is sent.
import { describe, expect, it } from "vitest";
import { toWireMessages } from "../../adapters/claude/encode.js";
import type { AssistantMessage, Message } from "../../src/index.js";
import { validateRequest } from "../mock/claude.js";

const call = (id: string, n: number) => ({ id, name: "echo", arguments: `{"n":${n}}` });
const result = (callId: string, output: string) => ({ role: "tool" as const, results: [{ callId, name: "echo", output, isError: false }] });
const fresh = (history: Message[]) => toWireMessages(structuredClone(history));

describe("assistant turns encoded once", () => {
  it("a second encoding of the same history is equal to a fresh one, and its lists are not shared", () => {
    const history: Message[] = [
      { role: "user", content: "go" },
      { role: "assistant", content: "looking", toolCalls: [call("a", 1), call("b", 2)] },
      result("a", "x"),
      { role: "assistant", content: "", toolCalls: [call("c", 3)] },
      result("c", "y"),
    ];
    history.splice(3, 0, { role: "user", content: "more" }, { role: "assistant", content: "" });
    const first = toWireMessages(history);
    const again = toWireMessages(history);
    expect(again).toEqual(first);
    expect(again).toEqual(fresh(history));
    expect(again[1]!.content).not.toBe(first[1]!.content);
    // what a later merge or mark does to one request's lists does not reach the next one
    again[1]!.content.push({ type: "text", text: "extra" });
    expect(toWireMessages(history)).toEqual(first);
  });

  it("a reused turn whose id a newer turn took first is encoded again (renamed as without reuse)", () => {
    const history: Message[] = [{ role: "user", content: "go" }, { role: "assistant", content: "", toolCalls: [call("call_0", 1)] }, result("call_0", "a")];
    toWireMessages(history); // turn 1 encoded with wire id call_0
    // the same message object, now after a turn that takes call_0
    const reordered: Message[] = [
      { role: "user", content: "go" },
      { role: "assistant", content: "", toolCalls: [call("call_0", 9)] },
      result("call_0", "z"),
      { role: "user", content: "again" },
      history[1]!,
      result("call_0", "a"),
    ];
    const messages = toWireMessages(reordered);
    expect(messages).toEqual(fresh(reordered));
    expect(validateRequest({ model: "m", max_tokens: 1, messages })).toBeUndefined();
  });

  it("a turn whose calls or providerData were replaced is encoded from what it holds now", () => {
    const turn: AssistantMessage = { role: "assistant", content: "", toolCalls: [call("a", 1)] };
    const history: Message[] = [{ role: "user", content: "go" }, turn, result("a", "x")];
    toWireMessages(history);
    turn.toolCalls = [call("a", 2)];
    expect(toWireMessages(history)).toEqual(fresh(history));
    turn.providerData = {
      provider: "claude",
      value: [
        { type: "text", text: "said" },
        { type: "tool_use", id: "a", name: "echo", input: { n: 3 } },
      ],
    };
    expect(toWireMessages(history)).toEqual(fresh(history));
    turn.content = "changed";
    turn.providerData = undefined;
    expect(toWireMessages(history)).toEqual(fresh(history));
  });
});
