// Vercel AI SDK, Anthropic Messages (@ai-sdk/anthropic).
import { createAnthropic } from "@ai-sdk/anthropic";
import * as agent from "./ai-sdk/shared.mjs";

const model = (base) => createAnthropic({ apiKey: "bench-key", baseURL: `${base}/v1` })("claude-sonnet-4-6");
export const jsonAgent = ({ base }) => agent.jsonAgent(model(base));
export const streamAgent = ({ base }) => agent.streamAgent(model(base));
export const decode = ({ base }) => agent.decode(model(base));
