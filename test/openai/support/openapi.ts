// Validators for request bodies from the official OpenAI OpenAPI document
// (/work/shared/fixtures/specs/openai/openapi.yaml), read with the test YAML reader and
// checked with @cfworker/json-schema. OpenAPI adds keywords JSON Schema does not have
// (example, discriminator, nullable, x-*); they are removed or translated first.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Validator } from "@cfworker/json-schema";
import { FIXTURES_ROOT } from "./fixtures.js";
import { parseYAML } from "./yaml.js";

export const OPENAPI_PATH = join(FIXTURES_ROOT, "specs/openai/openapi.yaml");

type Schema = Record<string, unknown>;

const MAP_KEYWORDS = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"]);
const LIST_KEYWORDS = new Set(["allOf", "anyOf", "oneOf", "prefixItems"]);
const SCHEMA_KEYWORDS = new Set([
  "items",
  "additionalProperties",
  "not",
  "if",
  "then",
  "else",
  "contains",
  "propertyNames",
  "unevaluatedProperties",
  "unevaluatedItems",
]);
const DROPPED = new Set(["example", "examples", "discriminator", "nullable", "deprecated", "externalDocs", "xml"]);

/** An OpenAPI schema object → plain JSON Schema (refs into #/$defs). */
function clean(node: unknown): unknown {
  if (typeof node !== "object" || node === null || Array.isArray(node)) return node;
  const s = node as Schema;
  const out: Schema = {};
  for (const [k, v] of Object.entries(s)) {
    if (DROPPED.has(k) || k.startsWith("x-")) continue;
    if (k === "$ref" && typeof v === "string") out.$ref = v.replace("#/components/schemas/", "#/$defs/");
    else if (MAP_KEYWORDS.has(k) && typeof v === "object" && v !== null) {
      out[k] = Object.fromEntries(Object.entries(v).map(([name, sub]) => [name, clean(sub)]));
    } else if (LIST_KEYWORDS.has(k) && Array.isArray(v)) out[k] = v.map(clean);
    else if (SCHEMA_KEYWORDS.has(k)) out[k] = clean(v);
    else out[k] = v;
  }
  if (s.nullable === true) {
    if (typeof out.type === "string") out.type = [out.type, "null"];
    else return { anyOf: [out, { type: "null" }] };
  }
  return out;
}

let cached: Record<string, unknown> | undefined;

function definitions(): Record<string, unknown> {
  if (!cached) {
    const spec = parseYAML(readFileSync(OPENAPI_PATH, "utf8")) as { components: { schemas: Record<string, unknown> } };
    cached = Object.fromEntries(Object.entries(spec.components.schemas).map(([k, v]) => [k, clean(v)]));
    relax(cached);
  }
  return cached;
}

/**
 * Where the document is stricter than the API. Each entry cites a request the real API
 * answered with 200 that the document would reject.
 */
function relax(defs: Record<string, unknown>): void {
  // OutputTextContent (reused for assistant messages sent back as input) lists logprobs as
  // required, but pydantic-ai's recorded follow-up request in
  // responses/pydantic-ai/test_openai_responses_model_web_search_tool_stream.yaml sends
  // output_text parts without logprobs and got 200.
  const text = defs.OutputTextContent as { required: string[] };
  text.required = text.required.filter((k) => k !== "logprobs");
  // InputItem is a oneOf with `discriminator: type`, which plain JSON Schema cannot say: a
  // user message with a content list ({role, content: [input_text, input_image...]}, the
  // form OpenAI's vision and file-input guides show) is both an EasyInputMessage and an
  // InputMessage, so "exactly one" fails although the server picks one by its type.
  const item = defs.InputItem as { oneOf?: unknown[]; anyOf?: unknown[] };
  item.anyOf = item.oneOf;
  delete item.oneOf;
}

export interface SpecIssue {
  path: string;
  message: string;
}

/** A validator for one component schema, e.g. "CreateResponse" or "CreateChatCompletionRequest". */
export function specValidator(component: string): (value: unknown) => SpecIssue[] {
  const defs = definitions();
  if (!defs[component]) throw new Error(`no schema ${component} in the OpenAPI document`);
  const validator = new Validator({ $ref: `#/$defs/${component}`, $defs: defs } as never, "2020-12", false);
  return (value) => {
    const r = validator.validate(value);
    if (r.valid) return [];
    // The deepest errors say what is wrong; the oneOf/anyOf wrappers above them only repeat it.
    const leaves = r.errors.filter((e) => !r.errors.some((o) => o !== e && o.instanceLocation.startsWith(e.instanceLocation + "/")));
    return leaves.map((e) => ({ path: e.instanceLocation, message: `${e.keyword}: ${e.error}` }));
  };
}
