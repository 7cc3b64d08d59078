// toolloop, Gemini (gemini()).
import { gemini } from "toolloop/gemini";
import * as agent from "./toolloop/shared.mjs";

const provider = (base) => gemini({ apiKey: "bench-key", model: "gemini-2.5-flash", baseURL: `${base}/v1beta` });
export const jsonAgent = ({ base }) => agent.jsonAgent(provider(base));
export const streamAgent = ({ base }) => agent.streamAgent(provider(base));
export const decode = ({ base }) => agent.decode(provider(base));
