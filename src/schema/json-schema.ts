// jsonSchema(): a raw JSON Schema as a Standard Schema, validated by @cfworker/json-schema
// (an interpreter: no code generation, so it runs in Workers). jsonTool(), ask() with a
// raw schema and the MCP server use it; a program that only uses valibot never loads it.
import { Validator } from "@cfworker/json-schema";
import type { ValidationIssue } from "../base/index.js";
import { isRecord } from "../base/index.js";
import type { JSONSchema, StandardJSONSchemaLike } from "./schema.js";
import { escapePointerToken, findInSchema, unescapePointerToken } from "./schema-walk.js";

/** A raw JSON Schema (draft-07 / 2020-12) usable wherever a schema is taken: tool(), ask(). */
export function jsonSchema<T = unknown>(schema: JSONSchema): StandardJSONSchemaLike<T> {
  const { $schema: _drop, ...json } = schema;
  const validate = jsonSchemaValidator(json);
  return {
    "~standard": {
      validate(value) {
        const r = validate(value) as ReturnType<ReturnType<typeof jsonSchemaValidator>>;
        return r.ok ? { value: r.value as T } : { issues: r.issues.map((i) => ({ message: i.message, path: pointerPath(i.path) })) };
      },
      jsonSchema: { input: () => json },
    },
  };
}

/** A validator that checks `value` against a JSON Schema and reports the leaf problems. */
export function jsonSchemaValidator(json: JSONSchema): (value: unknown) => { ok: true; value: unknown } | { ok: false; issues: ValidationIssue[] } {
  const validator = new Validator(json as never, "2020-12", false);
  return (value) => {
    const r = validator.validate(value);
    if (r.valid) return { ok: true, value };
    // cfworker reports every failing keyword up the tree; the leaves are the useful ones.
    const leaves = r.errors.filter((e) => !r.errors.some((o) => o !== e && o.instanceLocation.startsWith(e.instanceLocation + "/")));
    const seen = new Set<string>();
    const issues: ValidationIssue[] = [];
    for (const e of leaves.length ? leaves : r.errors) {
      const path = e.instanceLocation.replace(/^#/, "") || "/";
      const key = path + "\0" + e.error;
      if (seen.has(key)) continue;
      seen.add(key);
      issues.push({ path, message: e.error });
    }
    return { ok: false, issues };
  };
}

function pointerPath(pointer: string): string[] {
  return pointer === "/" ? [] : pointer.split("/").slice(1).map(unescapePointerToken);
}

const TYPES = ["string", "number", "integer", "boolean", "object", "array", "null"];

// What a keyword's value must be, after the JSON Schema 2020-12 meta-schema (draft-07's tuple
// `items` and `definitions` too). A hand-written check rather than validating against the
// meta-schema itself: @cfworker/json-schema has no $dynamicRef, which the 2020-12
// meta-schema recurses through, and the check names the exact place and what it takes.
const SCHEMA = "a schema (an object or a boolean)";
/** [the test, what it takes, the keywords, whether each entry (of a map or list) must be a schema]. */
const RULES: [test: (v: unknown) => boolean, what: string, keywords: string, entries?: boolean][] = [
  [isSubschema, SCHEMA, "additionalItems additionalProperties unevaluatedItems unevaluatedProperties propertyNames contains not if then else contentSchema"],
  [(v) => isSubschema(v) || (Array.isArray(v) && v.every(isSubschema)), `${SCHEMA} or an array of schemas`, "items"],
  [isRecord, "an object whose values are schemas", "properties patternProperties $defs definitions dependentSchemas", true],
  [(v) => Array.isArray(v) && v.length > 0, "a non-empty array of schemas", "allOf anyOf oneOf prefixItems", true],
  [(v) => Number.isFinite(v), "a number", "minimum maximum exclusiveMinimum exclusiveMaximum"],
  [(v) => (v as number) > 0 && Number.isFinite(v), "a number above 0", "multipleOf"],
  [
    (v) => Number.isInteger(v) && (v as number) >= 0,
    "a whole number, 0 or more",
    "minLength maxLength minItems maxItems minProperties maxProperties minContains maxContains",
  ],
  [(v) => typeof v === "string", "a string", "title description format $id $ref $anchor $dynamicRef $dynamicAnchor $comment contentMediaType contentEncoding"],
  [(v) => typeof v === "boolean", "true or false", "uniqueItems readOnly writeOnly deprecated"],
  [Array.isArray, "an array", "enum examples"],
  [isNameList, "an array of distinct property names", "required"],
  [(v) => isRecord(v) && Object.values(v).every(isNameList), "an object whose values are arrays of distinct property names", "dependentRequired"],
  [isPattern, "a regular expression (ECMA-262, as a string)", "pattern"],
  [
    (v) => isType(v) || (Array.isArray(v) && v.length > 0 && v.every(isType) && new Set(v).size === v.length),
    `one of ${TYPES.join(", ")}, or an array of distinct ones`,
    "type",
  ],
];

/**
 * The first place where `schema` breaks the JSON Schema meta-schema ("/properties/city/type
 * must be ..."), or undefined. Catches what would otherwise reach the provider as it is (a
 * misspelt type, `required: "city"`) and fail there, or quietly loosen what the model may send.
 * Stricter in one point: a `pattern` must compile (the validator would throw on every call).
 */
export function schemaProblem(schema: unknown): string | undefined {
  return findInSchema(schema, (node, path) => {
    for (const [test, what, keywords, entries] of RULES) {
      for (const key of keywords.split(" ")) {
        const value = node[key];
        if (value === undefined) continue; // as JSON, no keyword at all
        const at = `${path}/${escapePointerToken(key)}`;
        if (!test(value)) return `${at} must be ${what}, got ${JSON.stringify(value)?.slice(0, 80)}`;
        // Each entry of a map or list of subschemas (the walker visits only the objects among them).
        for (const [name, sub] of entries ? Object.entries(value as object) : []) {
          if (!isSubschema(sub)) return `${at}/${escapePointerToken(name)} must be ${SCHEMA}, got ${JSON.stringify(sub)?.slice(0, 80)}`;
        }
      }
    }
    for (const key of isRecord(node.patternProperties) ? Object.keys(node.patternProperties) : []) {
      if (!isPattern(key)) return `${path}/patternProperties: ${JSON.stringify(key)} is not a regular expression`;
    }
    return undefined;
  });
}

function isSubschema(v: unknown): boolean {
  return typeof v === "boolean" || isRecord(v);
}

function isNameList(v: unknown): boolean {
  return Array.isArray(v) && v.every((x) => typeof x === "string") && new Set(v).size === v.length;
}

function isType(v: unknown): boolean {
  return TYPES.includes(v as string);
}

/** Compiled as the validator compiles it (with the u flag); no code is generated. */
function isPattern(v: unknown): boolean {
  try {
    return typeof v === "string" && !!new RegExp(v, "u");
  } catch {
    return false;
  }
}
