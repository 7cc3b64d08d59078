// @mariozechner/pi-ai, OpenAI Responses (streamOpenAIResponses).
import { streamOpenAIResponses } from "@mariozechner/pi-ai/openai-responses";
import * as agent from "./pi-ai/shared.mjs";

const m = (base) => agent.model("openai-responses", "openai", "gpt-4.1-mini", `${base}/v1`);
export const streamAgent = ({ base }) => agent.streamAgent(streamOpenAIResponses, m(base));
export const decode = ({ base }) => agent.decode(streamOpenAIResponses, m(base));
