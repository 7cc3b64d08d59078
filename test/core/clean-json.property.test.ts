import { isDeepStrictEqual } from "node:util";
import fc from "fast-check";
import { describe, it } from "vitest";
import { cleanJSON } from "../../src/index.js";

// Characters that trip naive extractors, mixed with ordinary and non-ASCII ones.
const tricky = fc.constantFrom("{", "}", "[", "]", '"', "\\", "`", "```", ":", ",", " ", "\n", "é", "😀", "\u2028", "a", "b", "1");
const stringUnit = fc.oneof(tricky, fc.string({ unit: "grapheme", minLength: 1, maxLength: 1 }));
const jsonObject = fc.dictionary(fc.string({ unit: stringUnit, maxLength: 8 }), fc.jsonValue({ maxDepth: 3, stringUnit }), { maxKeys: 5 });

// "Prose" a model writes around JSON: anything but "{" (which would open another object
// before the real one) and "`" (which would open a fence).
const proseChar = fc.constantFrom(..."abcdefghijklmnopqrstuvwxyz ABCXYZ0123456789.,:;!?'\"()-*#\n\t]}".split(""), "é", "😀");
const prose = fc.string({ unit: proseChar, maxLength: 40 });
// What comes first must not itself make the whole text one JSON value ('"...' or '[...').
const leadingProse = prose.filter((p) => !/^\s*["[]/.test(p));

const wrapped = fc.record({
  value: jsonObject,
  indent: fc.constantFrom(0, 2, "\t"),
  fence: fc.constantFrom("", "```json\n", "```JSON\n", "```\n", "```", "```js "),
  before: leadingProse,
  after: prose,
  bom: fc.boolean(),
  padding: fc.constantFrom("", " ", "\n\n", "\t "),
});

type Wrapped = typeof wrapped extends fc.Arbitrary<infer T> ? T : never;

function build(w: Wrapped): string {
  const json = JSON.stringify(w.value, null, w.indent);
  const body = w.fence ? `${w.fence}${json}${w.fence.endsWith("\n") ? "\n" : ""}\`\`\`` : json;
  const before = w.before === "" ? "" : `${w.before}\n`;
  const after = w.after === "" ? "" : `\n${w.after}`;
  return `${w.bom ? "\uFEFF" : ""}${w.padding}${before}${body}${after}${w.padding}`;
}

describe("cleanJSON (property)", () => {
  it("recovers any JSON object wrapped in prose, fences, padding and a BOM, exactly", () => {
    fc.assert(
      fc.property(wrapped, (w) => {
        const text = build(w);
        const expected: unknown = JSON.parse(JSON.stringify(w.value));
        const got: unknown = JSON.parse(cleanJSON(text));
        if (!isDeepStrictEqual(got, expected)) throw new Error(`recovered ${JSON.stringify(got)} from ${JSON.stringify(text)}`);
      }),
      { seed: 20240601, numRuns: 10_000 },
    );
  }, 60_000);

  it("never throws on arbitrary strings, and leaves text that already parses alone", () => {
    const anyText = fc.oneof(
      fc.string({ unit: "binary", maxLength: 60 }),
      fc.string({ unit: fc.oneof(tricky, proseChar), maxLength: 60 }),
      fc.jsonValue({ maxDepth: 2 }).map((j) => JSON.stringify(j)),
    );
    fc.assert(
      fc.property(anyText, (text) => {
        const out = cleanJSON(text);
        if (typeof out !== "string") throw new Error("not a string");
        const trimmed = (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text).trim();
        let parses = true;
        try {
          JSON.parse(trimmed);
        } catch {
          parses = false;
        }
        if (parses && trimmed !== "" && out !== trimmed) throw new Error(`changed parseable text ${JSON.stringify(trimmed)} to ${JSON.stringify(out)}`);
        // what came out parseable comes out the same the second time
        let outParses = true;
        try {
          JSON.parse(out);
        } catch {
          outParses = false;
        }
        if (outParses && cleanJSON(out) !== out) throw new Error(`not idempotent on ${JSON.stringify(out)}`);
      }),
      { seed: 7, numRuns: 10_000 },
    );
  }, 60_000);
});
