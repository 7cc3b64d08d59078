// The hand-written fetch loop (the floor), gemini format.

import { gemini } from "./raw/gemini.mjs";
import * as raw from "./raw/loop.mjs";

export const jsonAgent = ({ base }) => raw.jsonAgent(gemini, base);
export const streamAgent = ({ base }) => raw.streamAgent(gemini, base);
export const decode = ({ base }) => raw.decode(gemini, base);
