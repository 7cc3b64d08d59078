// The hand-written fetch loop (the floor), chat format.

import { chat } from "./raw/chat.mjs";
import * as raw from "./raw/loop.mjs";

export const jsonAgent = ({ base }) => raw.jsonAgent(chat, base);
export const streamAgent = ({ base }) => raw.streamAgent(chat, base);
export const decode = ({ base }) => raw.decode(chat, base);
