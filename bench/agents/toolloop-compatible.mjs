// toolloop, any OpenAI-compatible server (openaiCompatible()). Same wire format as
// toolloop-chat; kept for the size budget in test/size, not part of the peer comparison.
import { openaiCompatible } from "toolloop/openai";
import * as agent from "./toolloop/shared.mjs";

const provider = (base) => openaiCompatible({ apiKey: "bench-key", model: "llama3.2", baseURL: `${base}/v1` });
export const jsonAgent = ({ base }) => agent.jsonAgent(provider(base));
export const streamAgent = ({ base }) => agent.streamAgent(provider(base));
export const decode = ({ base }) => agent.decode(provider(base));
