// What the two compaction test files share: a tool with a bulky result, and the token count the
// mocks use.
import * as v from "valibot";
import { tool } from "../../src/index.js";

/** A bulky result, so the history grows by ~120 tokens a step. */
export const reading = tool({
  name: "read_sensor",
  description: "Reads a sensor.",
  input: v.object({ n: v.number() }),
  run: async ({ n }) => ({ n, values: Array.from({ length: 40 }, (_, i) => (n * 31 + i) % 97) }),
});

/** The same count the mocks use: a token per 4 characters of the messages. */
export const tokensOf = (messages: readonly unknown[]) => Math.ceil(JSON.stringify(messages).length / 4);
