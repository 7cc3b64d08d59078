// @mariozechner/pi-ai, OpenAI Chat Completions (streamOpenAICompletions).
import { streamOpenAICompletions } from "@mariozechner/pi-ai/openai-completions";
import * as agent from "./pi-ai/shared.mjs";

const m = (base) => agent.model("openai-completions", "openai", "gpt-4.1-mini", `${base}/v1`);
export const streamAgent = ({ base }) => agent.streamAgent(streamOpenAICompletions, m(base));
export const decode = ({ base }) => agent.decode(streamOpenAICompletions, m(base));
