// What OpenAI rejects in any function schema, strict or not; checkTools() reports it when
// the tools are set instead of at the first request.
import type { JSONSchema } from "../../src/schema/index.js";
import { findInSchema } from "../../src/schema/index.js";

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
  return findArrayWithoutItems(schema);
}

/** The first array schema without `items` (or `prefixItems`), looked for 100 levels deep. */
function findArrayWithoutItems(schema: JSONSchema): SchemaProblem | undefined {
  return findInSchema(
    schema,
    (s, path) => {
      const isArray = s.type === "array" || (Array.isArray(s.type) && s.type.includes("array"));
      if (!isArray || s.items !== undefined || s.prefixItems !== undefined) return undefined;
      return { path, reason: 'an array schema needs "items" (OpenAI rejects "array schema missing items")' };
    },
    "",
    100,
  );
}
