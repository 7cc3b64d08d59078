// The Vercel AI SDK as its docs show it: a zod tool, generateText / streamText with stopWhen.
import { generateText, stepCountIs, streamText, tool } from "ai";
import { z } from "zod";
import { MAX_STEPS, PROMPT, SYSTEM, TOOL_DESCRIPTION, TOOL_NAME, TOOL_OUTPUT } from "../common.mjs";

// The documented switch for the SDK's console warnings: printing them would be measured.
globalThis.AI_SDK_LOG_WARNINGS = false;

const tools = () => ({
  [TOOL_NAME]: tool({
    description: TOOL_DESCRIPTION,
    inputSchema: z.object({ city: z.string().describe("City name.") }),
    execute: async () => TOOL_OUTPUT,
  }),
});

export function jsonAgent(model) {
  const t = tools();
  return {
    run: async () => (await generateText({ model, system: SYSTEM, prompt: PROMPT, tools: t, stopWhen: stepCountIs(MAX_STEPS), maxOutputTokens: 4096 })).text,
  };
}

export function streamAgent(model) {
  const t = tools();
  return {
    async run() {
      const result = streamText({ model, system: SYSTEM, prompt: PROMPT, tools: t, stopWhen: stepCountIs(MAX_STEPS), maxOutputTokens: 4096 });
      let text = "";
      for await (const part of result.fullStream) {
        if (part.type === "text-delta") text += part.text;
        else if (part.type === "error") throw part.error;
      }
      return text;
    },
  };
}

/** One streamed model call (streamText's default stopWhen is one step). */
export async function decode(model) {
  const result = streamText({ model, system: SYSTEM, prompt: PROMPT, tools: tools(), maxOutputTokens: 4096 });
  let n = 0;
  for await (const part of result.fullStream) {
    if (part.type === "text-delta") n += part.text.length;
    else if (part.type === "tool-input-delta") n += part.delta.length;
    else if (part.type === "error") throw part.error;
  }
  return n;
}
