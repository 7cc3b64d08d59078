// toolloop, OpenAI Chat Completions (openai({ api: "chat" })).
import { openai } from "toolloop/openai";
import * as agent from "./toolloop/shared.mjs";

const provider = (base) => openai({ apiKey: "bench-key", model: "gpt-4.1-mini", api: "chat", baseURL: `${base}/v1` });
export const jsonAgent = ({ base }) => agent.jsonAgent(provider(base));
export const streamAgent = ({ base }) => agent.streamAgent(provider(base));
export const decode = ({ base }) => agent.decode(provider(base));
