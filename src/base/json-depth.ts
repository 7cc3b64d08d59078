// How deeply a JSON text nests, found by a flat scan (no recursion, no parse). JSON.parse
// copes with any depth, but what comes after it does not: JSON.stringify, structuredClone
// and schema validators recurse, and a few thousand levels overflow the stack (a few
// hundred for a validator following a recursive $ref). Text from the network is measured
// before anything recursive touches it, and cut (parseJSONBounded) where it is too deep.

/** The deepest tool arguments the loop parses; deeper ones are answered as invalid input. */
export const MAX_ARGUMENT_DEPTH = 128;

/**
 * The deepest response body or stream event handed to an adapter: deeper parts are cut
 * (see parseJSONBounded), so decoders, history and the next request stay stack-safe.
 */
export const MAX_RESPONSE_DEPTH = 512;

/** True when the [ / { nesting of `text` goes deeper than `limit` (brackets inside strings do not count). */
export function nestsDeeperThan(text: string, limit: number): boolean {
  // Each level takes a character, so short texts (nearly every event and argument) need no scan.
  if (text.length <= limit || opensAtMost(text, limit)) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      if (++depth > limit) return true;
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) depth--;
  }
  return false;
}

/**
 * The JSON text of `value` if it is JSON nested at most `limit` deep, else undefined. For
 * values from outside that history keeps (a decision's answer, a loaded providerData): one
 * nested 10,000 deep, cyclic or holding a BigInt would surface later as a raw RangeError or
 * TypeError, or as a history that can never be saved again.
 */
export function jsonWithin(value: unknown, limit: number): string | undefined {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    return undefined; // too deep for the stack (RangeError), cyclic or a BigInt (TypeError)
  }
  return text === undefined || nestsDeeperThan(text, limit) ? undefined : text;
}

/**
 * True when `text` holds at most `limit` opening brackets in all, so no nesting can pass
 * `limit`. indexOf runs natively, so for the common body (long, with few brackets) this is
 * several times cheaper than the character scan or the walk over the parsed value.
 */
function opensAtMost(text: string, limit: number): boolean {
  let n = 0;
  for (const bracket of ["{", "["]) {
    for (let i = text.indexOf(bracket); i !== -1; i = text.indexOf(bracket, i + 1)) if (++n > limit) return false;
  }
  return true;
}

/**
 * JSON.parse (which copes with any depth) with every array or object nested deeper than
 * `limit` replaced by an empty one of its kind, walked without recursion. A model's
 * 10,000-level tool arguments inside a response body thus arrive cut to about `limit`
 * levels, which is still past MAX_ARGUMENT_DEPTH: the loop answers that one call as invalid
 * input (the model is asked to fix it) instead of the whole response being refused.
 * Throws SyntaxError as JSON.parse does.
 */
export function parseJSONBounded(text: string, limit: number): unknown {
  const value: unknown = JSON.parse(text);
  // Few brackets in all: nothing can be too deep. Otherwise the walk is the check: a response
  // has far fewer objects and arrays than characters, so visiting them is cheaper than
  // scanning the text (nestsDeeperThan), and arrays of scalars cost one typeof per item.
  if (typeof value !== "object" || value === null || opensAtMost(text, limit)) return value;
  const stack: [Record<string, unknown>, number][] = [[value as Record<string, unknown>, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        const child: unknown = node[i];
        if (typeof child !== "object" || child === null) continue;
        if (depth < limit) stack.push([child as Record<string, unknown>, depth + 1]);
        else node[i] = Array.isArray(child) ? [] : {};
      }
      continue;
    }
    for (const key of Object.keys(node)) {
      const child = node[key];
      if (typeof child !== "object" || child === null) continue;
      if (depth < limit) stack.push([child as Record<string, unknown>, depth + 1]);
      // defineProperty: a plain assignment to an own "__proto__" key would set the prototype.
      else Object.defineProperty(node, key, { value: Array.isArray(child) ? [] : {}, writable: true, enumerable: true, configurable: true });
    }
  }
  return value;
}

/**
 * Tool arguments (or any JSON text from a model) → `{ value }`; undefined when the text does
 * not parse, or nests deeper than MAX_ARGUMENT_DEPTH (too deep to clone or validate: left
 * unparsed, so the loop answers it as invalid input).
 */
export function tryParse(text: string): { value: unknown } | undefined {
  if (nestsDeeperThan(text, MAX_ARGUMENT_DEPTH)) return undefined;
  try {
    return { value: JSON.parse(text) };
  } catch {
    return undefined;
  }
}
