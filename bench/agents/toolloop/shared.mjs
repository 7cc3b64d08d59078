// toolloop as its README shows it: a valibot tool, createClient, chat / stream.

import { createClient, tool } from "toolloop";
import * as v from "valibot";
import { MAX_STEPS, PROMPT, SYSTEM, TOOL_DESCRIPTION, TOOL_NAME, TOOL_OUTPUT } from "../common.mjs";

const weather = () =>
  tool({
    name: TOOL_NAME,
    description: TOOL_DESCRIPTION,
    input: v.object({ city: v.pipe(v.string(), v.description("City name.")) }),
    run: async () => TOOL_OUTPUT,
  });

const client = (provider, tools, maxSteps = MAX_STEPS) => createClient({ provider, systemPrompt: SYSTEM, tools, maxSteps, parallelTools: true });

/** Each run is a new conversation on the same provider. */
export function jsonAgent(provider) {
  const tools = [weather()];
  return { run: () => client(provider, tools).chat(PROMPT) };
}

export function streamAgent(provider) {
  const tools = [weather()];
  return {
    async run() {
      let text = "";
      for await (const ev of client(provider, tools).stream(PROMPT)) if (ev.type === "text-delta") text += ev.text;
      return text;
    },
  };
}

/** One streamed model call: maxSteps 1 ends the run after the first response (a tool call ends it with MaxStepsError). */
export async function decode(provider) {
  let n = 0;
  try {
    for await (const ev of client(provider, [weather()], 1).stream(PROMPT)) {
      if (ev.type === "text-delta") n += ev.text.length;
      else if (ev.type === "tool-call-delta") n += ev.argsDelta.length;
    }
  } catch (err) {
    if (err?.code !== "max_steps") throw err;
  }
  return n;
}
