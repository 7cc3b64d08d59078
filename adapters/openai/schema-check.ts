// What OpenAI rejects in any function schema, strict or not; checkTools() reports it when
// the tools are set instead of at the first request.
import type { JSONSchema } from "../../src/schema.js";
import { escapePointer } from "./strict-schema.js";

/** Where a schema breaks a rule the API enforces even without strict mode. */
export interface SchemaProblem {
  path: string;
  reason: string;
}

/**
 * Checks what OpenAI rejects in any function schema: the root must be an object schema,
 * and (`arrayItems`) every array schema must say what its items are.
 */
export function findSchemaProblem(schema: JSONSchema, options: { arrayItems: boolean }): SchemaProblem | undefined {
  const type = schema.type;
  if (type !== "object" && !(Array.isArray(type) && type.includes("object") && !type.some((t) => t !== "object" && t !== "null"))) {
    return { path: "/type", reason: `function parameters must be an object schema (type "object"), got ${JSON.stringify(type)}` };
  }
  if (!options.arrayItems) return undefined;
  return findArrayWithoutItems(schema, "", 0);
}

const SUBSCHEMA_MAPS = ["properties", "$defs", "definitions", "patternProperties", "dependentSchemas"];
const SUBSCHEMA_LISTS = ["anyOf", "oneOf", "allOf", "prefixItems"];
const SUBSCHEMAS = ["items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames", "unevaluatedProperties", "unevaluatedItems"];

function findArrayWithoutItems(node: unknown, path: string, depth: number): SchemaProblem | undefined {
  if (typeof node !== "object" || node === null || Array.isArray(node) || depth > 100) return undefined;
  const s = node as Record<string, unknown>;
  const isArray = s.type === "array" || (Array.isArray(s.type) && s.type.includes("array"));
  if (isArray && s.items === undefined && s.prefixItems === undefined) {
    return { path, reason: 'an array schema needs "items" (OpenAI rejects "array schema missing items")' };
  }
  for (const key of SUBSCHEMA_MAPS) {
    const map = s[key];
    if (typeof map !== "object" || map === null) continue;
    for (const [name, sub] of Object.entries(map)) {
      const p = findArrayWithoutItems(sub, `${path}/${key}/${escapePointer(name)}`, depth + 1);
      if (p) return p;
    }
  }
  for (const key of SUBSCHEMA_LISTS) {
    const list = s[key];
    if (!Array.isArray(list)) continue;
    for (let i = 0; i < list.length; i++) {
      const p = findArrayWithoutItems(list[i], `${path}/${key}/${i}`, depth + 1);
      if (p) return p;
    }
  }
  for (const key of SUBSCHEMAS) {
    const p = findArrayWithoutItems(s[key], `${path}/${key}`, depth + 1);
    if (p) return p;
  }
  return undefined;
}
