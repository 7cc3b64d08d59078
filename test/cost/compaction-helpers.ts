// What the two compaction test files share: a tool with a bulky result, the token count the
// mocks use, how a summary request looks, and the history invariant.
import * as v from "valibot";
import { expect } from "vitest";
import { type Message, tool } from "../../src/index.js";

/** A bulky result, so the history grows by ~120 tokens a step. */
export const reading = tool({
  name: "read_sensor",
  description: "Reads a sensor.",
  input: v.object({ n: v.number() }),
  run: async ({ n }) => ({ n, values: Array.from({ length: 40 }, (_, i) => (n * 31 + i) % 97) }),
});

/** The same count the mocks use: a token per 4 characters of the messages. */
export const tokensOf = (messages: readonly unknown[]) => Math.ceil(JSON.stringify(messages).length / 4);

/** The compaction summary call: tools off, the summarise request last. */
export const isSummaryRequest = (r: { toolChoice?: unknown; messages: readonly Message[] }) => {
  const last = r.messages.at(-1);
  return r.toolChoice === "none" && last?.role === "user" && String(last.content).startsWith("Summarise");
};

/** Every assistant message with calls is followed by exactly their results, and every tool message follows one. */
export function checkInvariant(messages: readonly Message[]): void {
  messages.forEach((m, i) => {
    if (m.role === "assistant" && m.toolCalls?.length) {
      const next = messages[i + 1];
      expect(next?.role, `message ${i + 1} after a tool call`).toBe("tool");
      if (next?.role === "tool") expect(next.results.map((r) => r.callId)).toEqual(m.toolCalls.map((c) => c.id));
    }
    if (m.role === "tool") {
      const prev = messages[i - 1];
      expect(prev?.role === "assistant" && prev.toolCalls?.length, `tool message ${i} follows its calls`).toBeTruthy();
    }
  });
  expect(messages[0]?.role).toBe("user");
}
