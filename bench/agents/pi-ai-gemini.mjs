// @mariozechner/pi-ai, Gemini (streamGoogle).
import { streamGoogle } from "@mariozechner/pi-ai/google";
import * as agent from "./pi-ai/shared.mjs";

const m = (base) => agent.model("google-generative-ai", "google", "gemini-2.5-flash", `${base}/v1beta`);
export const streamAgent = ({ base }) => agent.streamAgent(streamGoogle, m(base));
export const decode = ({ base }) => agent.decode(streamGoogle, m(base));
