// OpenAI Structured Outputs ("strict" tools and response formats) accept a subset of JSON
// Schema: every property listed in `required`, `additionalProperties: false` on every
// object, and a short list of keywords. toStrictSchema() rewrites a user's schema into that
// subset where it can (optional properties become required-but-nullable) and says why
// when it cannot, so the caller can send that one schema non-strict instead.
// (./restore-nulls.ts undoes the rewrite on what the model writes.)
import { escapePointerToken } from "../../src/schema-walk.js";
import type { JSONSchema } from "../../src/schema.js";

export type StrictResult =
  /** `optional`: some property was optional and is now nullable, so the output may hold nulls to remove. */
  | { strict: true; schema: JSONSchema; optional: boolean }
  | { strict: false; path: string; reason: string };

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

class NotStrict extends Error {
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(reason);
  }
}

interface Walk {
  properties: number;
  /** Properties made nullable because the schema left them optional. */
  optional: number;
}

/** Rewrites `schema` for strict mode, or reports the first place that keeps it from being strict. */
export function toStrictSchema(schema: JSONSchema): StrictResult {
  try {
    const rootIsObject = schema.type === "object" || (schema.type === undefined && schema.properties !== undefined);
    if (!rootIsObject) throw new NotStrict("", "the root of a strict schema must be an object schema");
    const walk = { properties: 0, optional: 0 };
    const out = convert(schema, "", 0, walk);
    return { strict: true, schema: out, optional: walk.optional > 0 };
  } catch (err) {
    if (err instanceof NotStrict) return { strict: false, path: err.path, reason: err.reason };
    throw err;
  }
}

function convert(node: unknown, path: string, depth: number, walk: Walk): JSONSchema {
  if (typeof node !== "object" || node === null || Array.isArray(node)) {
    throw new NotStrict(path, "a boolean or non-object schema has no strict form");
  }
  const src = node as Record<string, unknown>;
  if (src.anyOf !== undefined && src.oneOf !== undefined) throw new NotStrict(path, "anyOf and oneOf together have no strict form");
  const out: JSONSchema = {};
  const object = isObjectSchema(src);
  for (const [key, value] of Object.entries(src)) {
    const at = `${path}/${escapePointerToken(key)}`;
    if (KEPT.has(key)) {
      out[key] = value;
    } else if (DROPPED.has(key)) {
      continue;
    } else if (key === "format") {
      if (typeof value !== "string" || !FORMATS.has(value)) throw new NotStrict(at, `format ${JSON.stringify(value)} is not supported in strict mode`);
      out.format = value;
    } else if (key === "properties" || key === "required") {
      if (!object) throw new NotStrict(at, `"${key}" outside an object schema`);
    } else if (key === "additionalProperties") {
      if (value !== false) throw new NotStrict(at, "strict mode needs additionalProperties: false (no open or typed maps)");
    } else if (key === "items") {
      if (typeof value !== "object" || value === null || Array.isArray(value)) throw new NotStrict(at, "tuple or boolean items have no strict form");
      out.items = convert(value, at, depth, walk);
    } else if (key === "anyOf" || key === "oneOf") {
      // oneOf is relaxed to anyOf; the tool's own validation still enforces exclusivity.
      if (!Array.isArray(value) || value.length === 0) throw new NotStrict(at, `${key} must be a non-empty array`);
      out.anyOf = value.map((branch, i) => convert(branch, `${at}/${i}`, depth, walk));
    } else if (key === "$ref") {
      if (typeof value !== "string" || !value.startsWith("#")) throw new NotStrict(at, "only local $refs (#/...) are supported in strict mode");
      out.$ref = value;
    } else if (key === "$defs" || key === "definitions") {
      if (typeof value !== "object" || value === null) throw new NotStrict(at, `${key} must be an object`);
      const defs: Record<string, JSONSchema> = {};
      for (const [name, def] of Object.entries(value)) defs[name] = convert(def, `${at}/${escapePointerToken(name)}`, 0, walk);
      out[key] = defs;
    } else {
      throw new NotStrict(at, `"${key}" is not supported in strict mode`);
    }
  }
  if (object) {
    if (depth + 1 > MAX_DEPTH) throw new NotStrict(path, `objects nest deeper than ${MAX_DEPTH} levels`);
    const props = (src.properties ?? {}) as Record<string, unknown>;
    if (typeof props !== "object" || props === null || Array.isArray(props)) throw new NotStrict(`${path}/properties`, "properties must be an object");
    const required = new Set(Array.isArray(src.required) ? (src.required as unknown[]) : []);
    const properties: Record<string, JSONSchema> = {};
    for (const [name, prop] of Object.entries(props)) {
      walk.properties++;
      const converted = convert(prop, `${path}/properties/${escapePointerToken(name)}`, depth + 1, walk);
      if (required.has(name)) properties[name] = converted;
      else {
        properties[name] = nullable(converted);
        walk.optional++;
      }
    }
    if (walk.properties > MAX_PROPERTIES) throw new NotStrict(path, `more than ${MAX_PROPERTIES} properties`);
    if (src.type === undefined) out.type = "object";
    out.properties = properties;
    // the schema's own `required` list as written, then the properties that were optional
    const names = Object.keys(properties);
    out.required = [...names.filter((n) => required.has(n)).sort((a, b) => requiredOrder(src, a) - requiredOrder(src, b)), ...names.filter((n) => !required.has(n))];
    out.additionalProperties = false;
  } else if (out.type === undefined && out.anyOf === undefined && out.$ref === undefined && out.enum === undefined && out.const === undefined) {
    throw new NotStrict(path, "a schema without a type (any value) has no strict form");
  }
  return out;
}

function requiredOrder(src: Record<string, unknown>, name: string): number {
  return (src.required as unknown[]).indexOf(name);
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

function isObjectSchema(node: unknown): boolean {
  if (typeof node !== "object" || node === null) return false;
  const s = node as Record<string, unknown>;
  return s.type === "object" || s.properties !== undefined || (Array.isArray(s.type) && s.type.includes("object"));
}
