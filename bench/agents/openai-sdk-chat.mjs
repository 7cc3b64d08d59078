// The official openai SDK, Chat Completions: chat.completions.runTools with a zod tool.
// (openai 6.x has no tool runner for the Responses API; openai 7, which has more, needs Node 22.)
import OpenAI from "openai";
import { zodFunction } from "openai/helpers/zod";
import { z } from "zod";
import { MAX_STEPS, PROMPT, SYSTEM, TOOL_DESCRIPTION, TOOL_NAME, TOOL_OUTPUT } from "./common.mjs";

const client = (base) => new OpenAI({ apiKey: "bench-key", baseURL: `${base}/v1` });
const tools = () => [
  zodFunction({
    name: TOOL_NAME,
    description: TOOL_DESCRIPTION,
    parameters: z.object({ city: z.string().describe("City name.") }),
    function: async () => TOOL_OUTPUT,
  }),
];
const messages = () => [
  { role: "system", content: SYSTEM },
  { role: "user", content: PROMPT },
];

export const jsonAgent = ({ base }) => {
  const c = client(base);
  const t = tools();
  return {
    run: () => c.chat.completions.runTools({ model: "gpt-4.1-mini", messages: messages(), tools: t }, { maxChatCompletions: MAX_STEPS }).finalContent(),
  };
};

export const streamAgent = ({ base }) => {
  const c = client(base);
  const t = tools();
  return {
    async run() {
      const runner = c.chat.completions.runTools({ model: "gpt-4.1-mini", messages: messages(), tools: t, stream: true }, { maxChatCompletions: MAX_STEPS });
      let text = "";
      for await (const chunk of runner) text += chunk.choices[0]?.delta?.content ?? "";
      return text;
    },
  };
};

/** One streamed call through the SDK's streaming helper (the one runTools uses). */
export const decode = async ({ base }) => {
  const stream = client(base).chat.completions.stream({ model: "gpt-4.1-mini", messages: messages(), tools: tools() });
  let n = 0;
  for await (const chunk of stream) {
    const delta = chunk.choices[0]?.delta;
    n += delta?.content?.length ?? 0;
    for (const t of delta?.tool_calls ?? []) n += t.function?.arguments?.length ?? 0;
  }
  await stream.finalChatCompletion();
  return n;
};
