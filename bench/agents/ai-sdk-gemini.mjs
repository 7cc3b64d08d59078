// Vercel AI SDK, Gemini (@ai-sdk/google).
import { createGoogleGenerativeAI } from "@ai-sdk/google";
import * as agent from "./ai-sdk/shared.mjs";

const model = (base) => createGoogleGenerativeAI({ apiKey: "bench-key", baseURL: `${base}/v1beta` })("gemini-2.5-flash");
export const jsonAgent = ({ base }) => agent.jsonAgent(model(base));
export const streamAgent = ({ base }) => agent.streamAgent(model(base));
export const decode = ({ base }) => agent.decode(model(base));
