// The hand-written fetch loop (the floor), anthropic format.

import { anthropic } from "./raw/anthropic.mjs";
import * as raw from "./raw/loop.mjs";

export const jsonAgent = ({ base }) => raw.jsonAgent(anthropic, base);
export const streamAgent = ({ base }) => raw.streamAgent(anthropic, base);
export const decode = ({ base }) => raw.decode(anthropic, base);
