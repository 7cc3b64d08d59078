import { isDeepStrictEqual } from "node:util";
import fc from "fast-check";
import * as v from "valibot";
import { describe, it } from "vitest";
import { isToolloopError, jsonTool, silentLogger, type Tool, tool } from "../../src/index.js";

const UNITS = ["metric", "imperial"];

/** The oracle, written from the schema's meaning, not from either validator. */
function isValid(x: unknown): x is { city: string; days?: number; units?: string } {
  if (typeof x !== "object" || x === null || Array.isArray(x)) return false;
  const o = x as Record<string, unknown>;
  const has = (k: string) => Object.hasOwn(o, k);
  if (!has("city") || typeof o.city !== "string" || o.city.length < 1) return false;
  if (has("days") && !(typeof o.days === "number" && Number.isInteger(o.days) && o.days >= 1 && o.days <= 14)) return false;
  if (has("units") && !UNITS.includes(o.units as string)) return false;
  return true;
}

/** What tool()'s handler must receive for a valid input: the known fields only (valibot strips the rest). */
function expectedInput(x: { city: string; days?: number; units?: string }): Record<string, unknown> {
  const out: Record<string, unknown> = { city: x.city };
  if (x.days !== undefined) out.days = x.days;
  if (x.units !== undefined) out.units = x.units;
  return out;
}

function probes() {
  const calls: unknown[] = [];
  const run = (input: unknown) => {
    calls.push(input);
    return "ok";
  };
  const typed = tool({
    name: "forecast",
    description: "A test tool.",
    input: v.object({
      city: v.pipe(v.string(), v.minLength(1)),
      days: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(14))),
      units: v.optional(v.picklist(UNITS)),
    }),
    run,
  });
  const raw = jsonTool({
    name: "forecast_raw",
    description: "A test tool.",
    parameters: {
      type: "object",
      properties: {
        city: { type: "string", minLength: 1 },
        days: { type: "integer", minimum: 1, maximum: 14 },
        units: { enum: UNITS },
      },
      required: ["city"],
    },
    run,
  });
  return { calls, typed, raw };
}

// Mostly-right objects (so both outcomes are common) and arbitrary JSON values.
const anyJSON = fc.jsonValue({ maxDepth: 2 });
const nearlyValid = fc.record(
  {
    city: fc.oneof(fc.string({ maxLength: 6 }), anyJSON),
    days: fc.oneof(fc.integer({ min: -2, max: 20 }), fc.double({ min: -5, max: 30, noNaN: true }), anyJSON),
    units: fc.oneof(fc.constantFrom("metric", "imperial", "kelvin", "Metric"), anyJSON),
    extra: anyJSON,
    ["__proto__"]: fc.constant({ city: "inherited?" }),
  },
  { requiredKeys: [] },
);
const validArgs = fc.record(
  {
    city: fc.string({ minLength: 1, maxLength: 6 }),
    days: fc.integer({ min: 1, max: 14 }),
    units: fc.constantFrom(...UNITS),
    extra: anyJSON,
  },
  { requiredKeys: ["city"] },
);
const argument = fc.record({
  value: fc.oneof(validArgs, nearlyValid, anyJSON, fc.dictionary(fc.string({ maxLength: 5 }), anyJSON, { maxKeys: 4 })),
  // how the model sent it: plain, fenced, or with prose (only an object can be found inside prose)
  wrap: fc.constantFrom("plain", "fence", "prose"),
});

function render(value: unknown, wrap: string): string {
  const json = JSON.stringify(value);
  const isObject = typeof value === "object" && value !== null && !Array.isArray(value);
  if (wrap === "fence") return "```json\n" + json + "\n```";
  if (wrap === "prose" && isObject) return `Here you go: ${json} (hope this helps)`;
  return json;
}

const ctx = { signal: new AbortController().signal, callId: "p", logger: silentLogger };

/** `strips`: tool() hands run valibot's output (known keys only); jsonTool() hands the parsed JSON as is. */
async function check(t: Tool, strips: boolean, calls: unknown[], value: unknown, text: string): Promise<void> {
  calls.length = 0;
  const parsed: unknown = JSON.parse(JSON.stringify(value));
  let out: string | undefined;
  try {
    out = (await t.call(text, ctx)) as string;
  } catch (err) {
    if (!isToolloopError(err, "failed_unmarshal_input")) throw err; // anything else is a bug
  }
  const valid = isValid(parsed);
  if (valid !== (calls.length === 1)) {
    throw new Error(`${t.name}: valid=${valid} but handler calls=${calls.length} for ${text}`);
  }
  if (valid) {
    if (out !== "ok") throw new Error(`${t.name}: unexpected output ${out}`);
    if (!isDeepStrictEqual(calls[0], strips ? expectedInput(parsed) : parsed)) throw new Error(`${t.name}: handler got ${JSON.stringify(calls[0])}`);
  }
}

describe("argument validation (property)", () => {
  it("calls the handler iff the arguments match the schema, and only ever rejects with FailedUnmarshalInputError", async () => {
    const { calls, typed, raw } = probes();
    let validSeen = 0;
    await fc.assert(
      fc.asyncProperty(argument, async ({ value, wrap }) => {
        const text = render(value, wrap);
        await check(typed, true, calls, value, text);
        await check(raw, false, calls, value, text);
        if (isValid(JSON.parse(JSON.stringify(value)))) validSeen++;
      }),
      { seed: 1234, numRuns: 10_000 },
    );
    // the generator must exercise both sides of "iff"
    if (validSeen < 500) throw new Error(`only ${validSeen} valid inputs were generated`);
  }, 60_000);

  it("arbitrary raw text never reaches the handler unless it holds valid arguments, and never throws anything else", async () => {
    const { calls, typed } = probes();
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: "binary", maxLength: 40 }), async (text) => {
        calls.length = 0;
        try {
          await typed.call(text, ctx);
        } catch (err) {
          if (!isToolloopError(err, "failed_unmarshal_input")) throw err;
          if (calls.length !== 0) throw new Error("handler ran on invalid input");
          return;
        }
        if (calls.length !== 1 || !isValid(calls[0])) throw new Error(`handler ran with ${JSON.stringify(calls[0])}`);
      }),
      { seed: 99, numRuns: 10_000 },
    );
  }, 60_000);
});
