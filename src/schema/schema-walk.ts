// Walking a JSON Schema: one list of the keywords whose values are subschemas (so property
// names, enum values and examples are never mistaken for schemas), one visitor over them,
// and the JSON Pointer helpers the paths in errors are written with (RFC 6901; fragments
// of a `$ref` are URI-decoded first).
import { isRecord } from "../base/index.js";

/** Keywords whose value maps names to subschemas. */
const SUBSCHEMA_MAPS = ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"];
/** Keywords whose value is a list of subschemas. */
const SUBSCHEMA_LISTS = ["anyOf", "oneOf", "allOf", "prefixItems"];
/** Keywords whose value is one subschema (`items` may also be draft-07's tuple list). */
const SUBSCHEMA_ONE = [
  "items",
  "additionalItems",
  "additionalProperties",
  "unevaluatedItems",
  "unevaluatedProperties",
  "propertyNames",
  "contains",
  "not",
  "if",
  "then",
  "else",
  "contentSchema",
];

/**
 * Calls `visit` on `node` and each object subschema below it, depth first, with its JSON
 * Pointer path; stops at (and returns) the first result that is not undefined. Subschemas
 * deeper than `maxDepth` levels are not visited.
 */
export function findInSchema<T>(
  node: unknown,
  visit: (node: Record<string, unknown>, path: string) => T | undefined,
  path = "",
  maxDepth = Infinity,
): T | undefined {
  if (!isRecord(node) || maxDepth < 0) return undefined;
  const found = visit(node, path);
  if (found !== undefined) return found;
  const next = maxDepth - 1;
  for (const key of SUBSCHEMA_MAPS) {
    const map = node[key];
    if (!isRecord(map)) continue;
    for (const [name, sub] of Object.entries(map)) {
      const r = findInSchema(sub, visit, `${path}/${key}/${escapePointerToken(name)}`, next);
      if (r !== undefined) return r;
    }
  }
  for (const key of SUBSCHEMA_LISTS) {
    const list = node[key];
    if (!Array.isArray(list)) continue;
    for (let i = 0; i < list.length; i++) {
      const r = findInSchema(list[i], visit, `${path}/${key}/${i}`, next);
      if (r !== undefined) return r;
    }
  }
  for (const key of SUBSCHEMA_ONE) {
    const sub = node[key];
    const list = Array.isArray(sub) ? sub : [sub];
    for (let i = 0; i < list.length; i++) {
      const r = findInSchema(list[i], visit, Array.isArray(sub) ? `${path}/${key}/${i}` : `${path}/${key}`, next);
      if (r !== undefined) return r;
    }
  }
  return undefined;
}

/**
 * A shallow copy of `node` with each of its direct subschemas replaced by `map(sub)` (for
 * rewriting a schema level by level; `map` recurses by calling mapSubschemas itself).
 */
export function mapSubschemas(node: Record<string, unknown>, map: (sub: unknown) => unknown): Record<string, unknown> {
  const out: Record<string, unknown> = { ...node };
  for (const key of SUBSCHEMA_MAPS) {
    const m = out[key];
    if (isRecord(m)) out[key] = Object.fromEntries(Object.entries(m).map(([k, v]) => [k, map(v)]));
  }
  for (const key of SUBSCHEMA_LISTS) {
    const list = out[key];
    if (Array.isArray(list)) out[key] = list.map(map);
  }
  for (const key of SUBSCHEMA_ONE) {
    const sub = out[key];
    if (Array.isArray(sub)) out[key] = sub.map(map);
    else if (isRecord(sub)) out[key] = map(sub);
  }
  return out;
}

/** A property name as one JSON Pointer token: "~" → "~0", "/" → "~1". */
export function unescapePointerToken(token: string): string {
  return token.replace(/~1/g, "/").replace(/~0/g, "~");
}

export function escapePointerToken(key: string): string {
  return key.replace(/~/g, "~0").replace(/\//g, "~1");
}

/**
 * The value at JSON Pointer `pointer` ("" is the root, "/a/0/b~1c") inside `root`, or
 * undefined where the path leads nowhere. Tokens are URI-decoded first, as they come from
 * a `$ref`'s fragment.
 */
export function resolvePointer(root: unknown, pointer: string): unknown {
  if (pointer === "") return root;
  let at: unknown = root;
  for (const raw of pointer.split("/").slice(1)) {
    const key = unescapePointerToken(decodeURIComponent(raw));
    if (typeof at !== "object" || at === null) return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return at;
}
