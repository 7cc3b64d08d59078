// How deeply a JSON text nests, found by a flat scan (no recursion, no parse). JSON.parse
// copes with any depth, but what comes after it does not: JSON.stringify, structuredClone
// and schema validators recurse, and a few thousand levels overflow the stack (a few
// hundred for a validator following a recursive $ref). Text from the network is measured
// before anything recursive touches it.

/** The deepest tool arguments the loop parses; deeper ones are answered as invalid input. */
export const MAX_ARGUMENT_DEPTH = 128;

/** The deepest response body or stream event an adapter decodes; deeper ones are refused. */
export const MAX_RESPONSE_DEPTH = 512;

/** True when the [ / { nesting of `text` goes deeper than `limit` (brackets inside strings do not count). */
export function nestsDeeperThan(text: string, limit: number): boolean {
  // Each level takes a character, so short texts (nearly every event and argument) need no scan.
  if (text.length <= limit) return false;
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
