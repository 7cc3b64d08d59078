// OpenAI Structured Outputs ("strict" tools and response formats) accept a subset of JSON
// Schema: every property listed in `required`, `additionalProperties: false` on every
// object, and a short list of keywords. toStrictSchema() rewrites a user's schema into that
// subset where it can (optional properties become required-but-nullable) and says where
// it cannot, so the caller can send that one schema non-strict instead.
// (./restore-nulls.ts undoes the rewrite on what the model writes.)

import type { JSONSchema } from "../../src/schema/index.js";
import { escapePointerToken } from "../../src/schema/index.js";

export type StrictResult =
  /** `optional`: some property was optional and is now nullable, so the output may hold nulls to remove. */
  | { strict: true; schema: JSONSchema; optional: boolean }
  /** `path`: the JSON Pointer of the first keyword or subschema without a strict form. */
  | { strict: false; path: string };

/** OpenAI documents up to 10 levels of object nesting and 5000 properties in strict mode. */
const MAX_DEPTH = 10;
const MAX_PROPERTIES = 5000;

/** String formats strict mode accepts. */
const FORMATS = new Set(["date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"]);

/** Keywords kept as they are (validation keywords strict mode supports, plus annotations). */
const KEPT = new Set([
  "type",
  "enum",
  "const",
  "description",
  "title",
  "pattern",
  "multipleOf",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "minItems",
  "maxItems",
]);

/** Annotations strict mode rejects that carry no constraint: dropped rather than given up on. */
const DROPPED = new Set(["$schema", "$id", "$comment", "default", "examples", "deprecated", "readOnly", "writeOnly"]);

/**
 * Thrown at the first place without a strict form; toStrictSchema() turns it into its result.
 * The caller only needs that it failed (it then sends the schema as written) and the path
 * says where; prose reasons were kept in no bundle worth their bytes.
 */
class NotStrict {
  constructor(readonly path: string) {}
}

const fail = (path: string): never => {
  throw new NotStrict(path);
};

/** An object that is not an array (a schema, or a map of them). */
const isMap = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

interface Walk {
  properties: number;
  /** Properties made nullable because the schema left them optional. */
  optional: number;
}

/** Rewrites `schema` for strict mode, or reports the first place that keeps it from being strict. */
export function toStrictSchema(schema: JSONSchema): StrictResult {
  try {
    // The root must be an object schema.
    if (schema.type !== "object" && (schema.type !== undefined || schema.properties === undefined)) fail("");
    const walk = { properties: 0, optional: 0 };
    const out = convert(schema, "", 0, walk);
    return { strict: true, schema: out, optional: walk.optional > 0 };
  } catch (err) {
    if (err instanceof NotStrict) return { strict: false, path: err.path };
    throw err;
  }
}

function convert(node: unknown, path: string, depth: number, walk: Walk): JSONSchema {
  if (!isMap(node)) return fail(path); // a boolean or non-object schema has no strict form
  if (node.anyOf !== undefined && node.oneOf !== undefined) fail(path);
  const out: JSONSchema = {};
  const object = node.type === "object" || node.properties !== undefined || (Array.isArray(node.type) && node.type.includes("object"));
  for (const [key, value] of Object.entries(node)) {
    const at = `${path}/${escapePointerToken(key)}`;
    if (KEPT.has(key)) out[key] = value;
    else if (DROPPED.has(key)) continue;
    else if (key === "format") out.format = typeof value === "string" && FORMATS.has(value) ? value : fail(at);
    else if (key === "properties" || key === "required") {
      if (!object) fail(at); // read below, for object schemas only
    } else if (key === "additionalProperties") {
      if (value !== false) fail(at); // no open or typed maps
    } else if (key === "items")
      out.items = isMap(value) ? convert(value, at, depth, walk) : fail(at); // no tuples
    else if (key === "anyOf" || key === "oneOf") {
      // oneOf is relaxed to anyOf; the tool's own validation still enforces exclusivity.
      out.anyOf = Array.isArray(value) && value.length > 0 ? value.map((branch, i) => convert(branch, `${at}/${i}`, depth, walk)) : fail(at);
    } else if (key === "$ref")
      out.$ref = typeof value === "string" && value.startsWith("#") ? value : fail(at); // local refs only
    else if ((key === "$defs" || key === "definitions") && typeof value === "object" && value !== null) {
      const defs: Record<string, JSONSchema> = {};
      for (const [name, def] of Object.entries(value)) defs[name] = convert(def, `${at}/${escapePointerToken(name)}`, 0, walk);
      out[key] = defs;
    } else fail(at);
  }
  if (object) {
    if (depth + 1 > MAX_DEPTH) fail(path);
    const props = node.properties ?? {};
    if (!isMap(props)) fail(`${path}/properties`);
    const required = new Set(Array.isArray(node.required) ? (node.required as unknown[]) : []);
    const properties: Record<string, JSONSchema> = {};
    for (const [name, prop] of Object.entries(props as Record<string, unknown>)) {
      walk.properties++;
      const converted = convert(prop, `${path}/properties/${escapePointerToken(name)}`, depth + 1, walk);
      if (required.has(name)) properties[name] = converted;
      else {
        properties[name] = nullable(converted);
        walk.optional++;
      }
    }
    if (walk.properties > MAX_PROPERTIES) fail(path);
    if (node.type === undefined) out.type = "object";
    out.properties = properties;
    // the schema's own `required` list as written, then the properties that were optional
    const names = Object.keys(properties);
    out.required = [...[...required].filter((n) => names.includes(n as string)), ...names.filter((n) => !required.has(n))];
    out.additionalProperties = false;
  } else if (out.type === undefined && out.anyOf === undefined && out.$ref === undefined && out.enum === undefined && out.const === undefined) {
    fail(path); // a schema without a type (any value) has no strict form
  }
  return out;
}

/** The same schema, also accepting null: how strict mode spells "optional". */
function nullable(schema: JSONSchema): JSONSchema {
  if (schema.const !== undefined || schema.$ref !== undefined) return { anyOf: [schema, { type: "null" }] };
  const type = schema.type;
  if (typeof type === "string" || Array.isArray(type)) {
    const types = Array.isArray(type) ? (type as unknown[]) : [type];
    if (types.includes("null")) return schema;
    const out: JSONSchema = { ...schema, type: [...types, "null"] };
    if (Array.isArray(schema.enum) && !schema.enum.includes(null)) out.enum = [...schema.enum, null];
    return out;
  }
  if (Array.isArray(schema.anyOf)) {
    const branches = schema.anyOf as JSONSchema[];
    if (branches.some((b) => b.type === "null")) return schema;
    return { ...schema, anyOf: [...branches, { type: "null" }] };
  }
  if (Array.isArray(schema.enum)) return schema.enum.includes(null) ? schema : { ...schema, enum: [...schema.enum, null] };
  return { anyOf: [schema, { type: "null" }] };
}
