// @openai/agents as its docs show it: an Agent with a zod tool, run() / run({ stream: true }).
// Tracing is turned off: its exporter would post traces to api.openai.com.
import { Agent, run, setTracingDisabled, tool } from "@openai/agents";
import { z } from "zod";
import { MAX_STEPS, PROMPT, SYSTEM, TOOL_DESCRIPTION, TOOL_NAME, TOOL_OUTPUT } from "../common.mjs";

setTracingDisabled(true);

const agent = (model, extra = {}) =>
  new Agent({
    name: "bench",
    instructions: SYSTEM,
    model,
    tools: [
      tool({
        name: TOOL_NAME,
        description: TOOL_DESCRIPTION,
        parameters: z.object({ city: z.string().describe("City name.") }),
        execute: async () => TOOL_OUTPUT,
      }),
    ],
    ...extra,
  });

export function jsonAgent(model) {
  const a = agent(model);
  return { run: async () => (await run(a, PROMPT, { maxTurns: MAX_STEPS })).finalOutput };
}

export function streamAgent(model) {
  const a = agent(model);
  return {
    async run() {
      const result = await run(a, PROMPT, { stream: true, maxTurns: MAX_STEPS });
      let text = "";
      for await (const chunk of result.toTextStream()) text += chunk;
      await result.completed;
      return text;
    },
  };
}

/** One streamed model call: stop_on_first_tool ends the run after the tool call's turn. */
export async function decode(model, deltaOf) {
  const result = await run(agent(model, { toolUseBehavior: "stop_on_first_tool" }), PROMPT, { stream: true, maxTurns: MAX_STEPS });
  let n = 0;
  for await (const ev of result) if (ev.type === "raw_model_stream_event") n += deltaOf(ev.data);
  await result.completed;
  return n;
}
