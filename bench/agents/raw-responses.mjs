// The hand-written fetch loop (the floor), responses format.
import * as raw from "./raw/loop.mjs";
import { responses } from "./raw/responses.mjs";

export const jsonAgent = ({ base }) => raw.jsonAgent(responses, base);
export const streamAgent = ({ base }) => raw.streamAgent(responses, base);
export const decode = ({ base }) => raw.decode(responses, base);
