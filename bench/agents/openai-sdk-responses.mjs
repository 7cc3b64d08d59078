// The official openai SDK, Responses API. openai 6.x has no tool runner for Responses, so
// this module only streams one call (decode benchmark): responses.stream().
import OpenAI from "openai";
import { PROMPT, SYSTEM, TOOL_DESCRIPTION, TOOL_NAME, TOOL_SCHEMA } from "./common.mjs";

export const decode = async ({ base }) => {
  const client = new OpenAI({ apiKey: "bench-key", baseURL: `${base}/v1` });
  const stream = client.responses.stream({
    model: "gpt-4.1-mini",
    instructions: SYSTEM,
    input: PROMPT,
    tools: [{ type: "function", name: TOOL_NAME, description: TOOL_DESCRIPTION, parameters: TOOL_SCHEMA, strict: false }],
  });
  let n = 0;
  for await (const ev of stream) {
    if (ev.type === "response.output_text.delta" || ev.type === "response.function_call_arguments.delta") n += ev.delta.length;
  }
  await stream.finalResponse();
  return n;
};
