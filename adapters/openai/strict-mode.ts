// Strict mode for tools and response formats, as both OpenAI APIs take them: each schema compiled for
// strict mode when strict is on and the schema allows it, else sent as written. The
// original schema is kept so the model's output can be mapped back (null → absent).
import type { ModelResponse, ToolSpec } from "../../src/conversation/index.js";
import type { JSONSchema } from "../../src/schema/index.js";
import { restoreJSONText } from "./restore-nulls.js";
import { type StrictResult, toStrictSchema } from "./strict-schema.js";

export interface PreparedSchema {
  name: string;
  description: string;
  /** What is sent: the strict rewrite, or the original. */
  schema: JSONSchema;
  /** undefined = do not send a `strict` field at all (servers that do not know it). */
  strict: boolean | undefined;
  /**
   * Set when the strict rewrite made optional properties nullable: the caller's schema, which the
   * model's nulls are mapped back to. Without optional properties there is nothing to map, and
   * the output is not parsed again.
   */
  original?: JSONSchema;
  /** A response format whose root is not an object, sent as {"value": ...} and unwrapped on the way back. */
  wrapped?: boolean;
}

// Schemas are immutable once set on a client; compile each one once.
const cache = new WeakMap<object, StrictResult>();

function strictFor(schema: JSONSchema): StrictResult {
  let r = cache.get(schema);
  if (!r) {
    r = toStrictSchema(schema);
    cache.set(schema, r);
  }
  return r;
}

/**
 * `mode`: "strict" tries strict and falls back per schema; "off" sends strict: false;
 * "omit" sends no strict field (for OpenAI-compatible servers).
 */
export type StrictMode = "strict" | "off" | "omit";

export function prepareSchema(name: string, description: string, schema: JSONSchema, mode: StrictMode): PreparedSchema {
  if (mode === "omit") return { name, description, schema, strict: undefined };
  if (mode === "off") return { name, description, schema, strict: false };
  const r = strictFor(schema);
  if (!r.strict) return { name, description, schema, strict: false };
  const out: PreparedSchema = { name, description, schema: r.schema, strict: true };
  if (r.optional) out.original = schema;
  return out;
}

/**
 * The structured-output format. OpenAI takes only object roots, so another root (ask()
 * with an array, a string...) travels as the one property of an object.
 */
export function prepareFormat(name: string, schema: JSONSchema, mode: StrictMode): PreparedSchema {
  if (mode === "omit" || schema.type === "object") return prepareSchema(name, "", schema, mode);
  const wrapper: JSONSchema = { type: "object", properties: { value: schema }, required: ["value"], additionalProperties: false };
  return { ...prepareSchema(name, "", wrapper, mode), wrapped: true };
}

export function prepareTools(tools: readonly ToolSpec[], mode: StrictMode): PreparedSchema[] {
  return tools.map((t) => prepareSchema(t.name, t.description, t.parameters, mode));
}

/**
 * Maps a response produced under strict schemas back to the user's schemas: tool-call
 * arguments and (for structured output) the text lose the nulls strict mode forced.
 */
export function restoreStrict(response: ModelResponse, tools: readonly PreparedSchema[], format: PreparedSchema | undefined): ModelResponse {
  const byName = new Map<string, JSONSchema>();
  for (const t of tools) if (t.original) byName.set(t.name, t.original);
  if (byName.size > 0) {
    response.toolCalls = response.toolCalls.map((c) => {
      const original = byName.get(c.name);
      if (!original) return c;
      const args = restoreJSONText(c.arguments, original);
      return args === c.arguments ? c : { ...c, arguments: args };
    });
  }
  if (format?.original && response.text !== "") {
    const trimmed = response.text.trim();
    const restored = restoreJSONText(trimmed, format.original);
    if (restored !== trimmed) response.text = restored;
  }
  if (format?.wrapped) response.text = unwrap(response.text);
  return response;
}

/** {"value": x} → x as JSON; anything else is left for the caller's validation to report. */
function unwrap(text: string): string {
  try {
    const parsed = JSON.parse(text) as unknown;
    if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) && "value" in parsed) {
      return JSON.stringify((parsed as { value: unknown }).value);
    }
  } catch {
    // not JSON: the caller reports it
  }
  return text;
}
