// @openai/agents, OpenAI Chat Completions (OpenAIChatCompletionsModel).
import { OpenAIChatCompletionsModel } from "@openai/agents";
import OpenAI from "openai";
import * as agent from "./openai-agents/shared.mjs";

const model = (base) => new OpenAIChatCompletionsModel(new OpenAI({ apiKey: "bench-key", baseURL: `${base}/v1` }), "gpt-4.1-mini");
/** Characters of text and arguments in one raw model event. */
const deltaOf = (data) => {
  if (data.type === "output_text_delta") return data.delta.length;
  if (data.type !== "model") return 0;
  let n = 0;
  for (const t of data.event?.choices?.[0]?.delta?.tool_calls ?? []) n += t.function?.arguments?.length ?? 0;
  return n;
};
export const jsonAgent = ({ base }) => agent.jsonAgent(model(base));
export const streamAgent = ({ base }) => agent.streamAgent(model(base));
export const decode = ({ base }) => agent.decode(model(base), deltaOf);
