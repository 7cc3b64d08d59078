// Models wrap JSON in things: ```json fences, "Here are the arguments:" prose, trailing
// remarks, a BOM. cleanJSON() finds the JSON inside. It never repairs invalid JSON
// (a trailing comma stays an error): guessing would hand the tool input the model did
// not write.

import { MAX_ARGUMENT_DEPTH, nestsDeeperThan, tryParse } from "../base/index.js";

const FENCE = /```[a-zA-Z0-9_-]*[ \t]*\r?\n?([\s\S]*?)```/;

/**
 * Returns the JSON text inside `raw`: the whole string when it already parses, else the
 * contents of the first code fence (when it opens before the first "{"), else the first
 * complete {...} object, else a later fence. An empty string means "no arguments", i.e. "{}".
 */
export function cleanJSON(raw: string): string {
  return clean(raw).text;
}

/**
 * cleanJSON + JSON.parse in one pass (what clean() parsed is reused). Throws SyntaxError,
 * also for JSON nested deeper than MAX_ARGUMENT_DEPTH (validators would overflow the stack).
 */
export function parseJSONArguments(raw: string): unknown {
  const c = clean(raw);
  if (c.parsed !== undefined) return c.parsed.value;
  if (nestsDeeperThan(c.text, MAX_ARGUMENT_DEPTH)) throw new SyntaxError(`JSON nested deeper than ${MAX_ARGUMENT_DEPTH} levels`);
  return JSON.parse(c.text);
}

type Cleaned = { text: string; parsed?: { value: unknown } };

function clean(raw: string): Cleaned {
  let s = raw.charCodeAt(0) === 0xfeff ? raw.slice(1) : raw;
  s = s.trim();
  if (s === "") return { text: "{}", parsed: { value: {} } };
  // Fast path: the model sent plain JSON, as it nearly always does.
  const first = s.charCodeAt(0);
  if (first === 0x7b /* { */ || first === 0x5b /* [ */ || first === 0x22 /* " */) {
    const parsed = tryParse(s);
    if (parsed) return { text: s, parsed };
  }
  const fence = FENCE.exec(s);
  const fenced = fence ? fromFence(fence[1]!) : undefined;
  // A fence that opens before the first "{" wraps the JSON. One that opens later may sit
  // inside a JSON string ({"code":"```x```"}), so the object is tried before it.
  const brace = s.indexOf("{");
  if (fenced?.parsed && (brace < 0 || fence!.index < brace)) return fenced;
  const obj = firstObject(s);
  if (obj !== undefined) {
    const parsed = tryParse(obj);
    if (parsed) return { text: obj, parsed };
  }
  if (fenced?.parsed) return fenced;
  return { text: fenced?.text ?? obj ?? s };
}

function fromFence(body: string): Cleaned {
  const inner = body.trim();
  return inner === "" ? { text: "{}", parsed: { value: {} } } : clean(inner);
}

/** The first balanced {...} in s, skipping braces inside strings; the rest from "{" if unbalanced. */
function firstObject(s: string): string | undefined {
  const start = s.indexOf("{");
  if (start < 0) return undefined;
  let depth = 0;
  let inString = false;
  for (let i = start; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x7b) depth++;
    else if (c === 0x7d && --depth === 0) return s.slice(start, i + 1);
  }
  return s.slice(start);
}
