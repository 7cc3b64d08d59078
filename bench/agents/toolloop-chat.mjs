// toolloop, OpenAI Chat Completions (openaiChat()).
import { openaiChat } from "toolloop/openai";
import * as agent from "./toolloop/shared.mjs";

const provider = (base) => openaiChat({ apiKey: "bench-key", model: "gpt-4.1-mini", baseURL: `${base}/v1` });
export const jsonAgent = ({ base }) => agent.jsonAgent(provider(base));
export const streamAgent = ({ base }) => agent.streamAgent(provider(base));
export const decode = ({ base }) => agent.decode(provider(base));
