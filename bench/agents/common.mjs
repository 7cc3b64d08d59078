// What every agent does, whichever SDK runs it: the same prompt, system prompt, tool and
// step bound. Kept tiny and dependency-free: it is bundled into every size measurement.

/** In every tool result, so the mock server can count finished steps. */
export const MARK = "zqx1";
/** What get_weather returns, in every SDK. */
export const TOOL_OUTPUT = `Sunny, 21 C (${MARK})`;
export const PROMPT = "What is the weather in these 100 cities?";
export const SYSTEM = "Use the get_weather tool for every city.";
export const TOOL_NAME = "get_weather";
export const TOOL_DESCRIPTION = "Current weather for a city.";
/** Bound on model calls; the loop scenario needs 21 (20 tool steps + the answer). */
export const MAX_STEPS = 25;
/** The tool's input as plain JSON Schema (for SDKs that take one). */
export const TOOL_SCHEMA = {
  type: "object",
  properties: { city: { type: "string", description: "City name." } },
  required: ["city"],
  additionalProperties: false,
};
