// The hand-written fetch loop (the floor), chat format.
import * as raw from "./raw/loop.mjs";
import { chat } from "./raw/chat.mjs";

export const jsonAgent = ({ base }) => raw.jsonAgent(chat, base);
export const streamAgent = ({ base }) => raw.streamAgent(chat, base);
export const decode = ({ base }) => raw.decode(chat, base);
