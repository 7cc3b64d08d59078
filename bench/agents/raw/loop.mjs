// The physical floor: a hand-written tool loop with nothing but fetch, JSON.parse and
// eventsource-parser. No validation, no retries, no abort: the least any SDK must do.
// A codec (anthropic.mjs, chat.mjs, ...) knows one wire format; this file is the loop.
import { createParser } from "eventsource-parser";
import { MAX_STEPS, PROMPT, TOOL_OUTPUT } from "../common.mjs";

const tools = { get_weather: async () => TOOL_OUTPUT };

async function post(codec, base, stream, history) {
  const res = await fetch(codec.url(base, stream), {
    method: "POST",
    headers: { "content-type": "application/json", ...codec.headers },
    body: JSON.stringify(codec.body(history, stream)),
  });
  if (!res.ok) throw new Error(`HTTP ${res.status}: ${await res.text()}`);
  return res;
}

/** Feeds the SSE body to a codec's stream decoder; resolves with the assistant turn. */
export async function readSSE(res, decoder) {
  const parser = createParser({ onEvent: (ev) => decoder.event(ev) });
  const reader = res.body.getReader();
  const utf8 = new TextDecoder();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parser.feed(utf8.decode(value, { stream: true }));
  }
  return decoder.result();
}

/** One conversation: model call, run every call in parallel, answer, repeat. */
export async function runLoop(codec, base, stream, onText) {
  const history = [{ role: "user", text: PROMPT }];
  for (let step = 0; step < MAX_STEPS; step++) {
    const res = await post(codec, base, stream, history);
    const turn = stream ? await readSSE(res, codec.stream(onText)) : codec.decode(JSON.parse(await res.text()));
    history.push({ role: "assistant", text: turn.text, calls: turn.calls });
    if (turn.calls.length === 0) return turn.text;
    const results = await Promise.all(turn.calls.map(async (c) => ({ id: c.id, name: c.name, output: await tools[c.name](JSON.parse(c.args || "{}")) })));
    history.push({ role: "tool", results });
  }
  throw new Error("too many steps");
}

/** One streamed model call (decode benchmark): the characters of text and arguments received. */
export async function decodeOnce(codec, base, onText) {
  const res = await post(codec, base, true, [{ role: "user", text: PROMPT }]);
  const turn = await readSSE(res, codec.stream(onText));
  for (const c of turn.calls) JSON.parse(c.args);
  return turn.text.length + turn.calls.reduce((n, c) => n + c.args.length, 0);
}

// One export per job, each tree-shakable: a size measurement keeps only jsonAgent.
export const jsonAgent = (codec, base) => ({ run: () => runLoop(codec, base, false) });
export const streamAgent = (codec, base) => ({ run: () => runLoop(codec, base, true, () => {}) });
export const decode = (codec, base) => decodeOnce(codec, base, () => {});
