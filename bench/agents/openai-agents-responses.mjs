// @openai/agents, OpenAI Responses (OpenAIResponsesModel, the default).
import { OpenAIResponsesModel } from "@openai/agents";
import OpenAI from "openai";
import * as agent from "./openai-agents/shared.mjs";

const model = (base) => new OpenAIResponsesModel(new OpenAI({ apiKey: "bench-key", baseURL: `${base}/v1` }), "gpt-4.1-mini");
/** Characters of text and arguments in one raw model event. */
const deltaOf = (data) =>
  data.type === "output_text_delta"
    ? data.delta.length
    : data.type === "model" && data.event?.type === "response.function_call_arguments.delta"
      ? data.event.delta.length
      : 0;
export const jsonAgent = ({ base }) => agent.jsonAgent(model(base));
export const streamAgent = ({ base }) => agent.streamAgent(model(base));
export const decode = ({ base }) => agent.decode(model(base), deltaOf);
