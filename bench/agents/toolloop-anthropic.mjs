// toolloop, Anthropic Messages (claude()).
import { claude } from "toolloop/claude";
import * as agent from "./toolloop/shared.mjs";

const provider = (base) => claude({ apiKey: "bench-key", model: "claude-sonnet-4-6", baseURL: `${base}/v1` });
export const jsonAgent = ({ base }) => agent.jsonAgent(provider(base));
export const streamAgent = ({ base }) => agent.streamAgent(provider(base));
export const decode = ({ base }) => agent.decode(provider(base));
