// Vercel AI SDK, OpenAI Chat Completions (@ai-sdk/openai .chat()).
import { createOpenAI } from "@ai-sdk/openai";
import * as agent from "./ai-sdk/shared.mjs";

const model = (base) => createOpenAI({ apiKey: "bench-key", baseURL: `${base}/v1` }).chat("gpt-4.1-mini");
export const jsonAgent = ({ base }) => agent.jsonAgent(model(base));
export const streamAgent = ({ base }) => agent.streamAgent(model(base));
export const decode = ({ base }) => agent.decode(model(base));
