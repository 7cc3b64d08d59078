// @mariozechner/pi-ai, Anthropic Messages (streamAnthropic).
import { streamAnthropic } from "@mariozechner/pi-ai/anthropic";
import * as agent from "./pi-ai/shared.mjs";

const m = (base) => agent.model("anthropic-messages", "anthropic", "claude-sonnet-4-6", base);
export const streamAgent = ({ base }) => agent.streamAgent(streamAnthropic, m(base));
export const decode = ({ base }) => agent.decode(streamAnthropic, m(base));
