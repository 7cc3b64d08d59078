// Undoes the strict-mode rewrite on the model's output: a `null` the model had to write
// for a property the ORIGINAL schema left optional becomes an absent property again, so
// the tool's own validation (and ask()) sees what the user's schema describes.

import { MAX_ARGUMENT_DEPTH, nestsDeeperThan } from "../../src/base/index.js";
import type { JSONSchema } from "../../src/schema/index.js";
import { resolvePointer } from "../../src/schema/index.js";

/**
 * Removes `null` values the model wrote for properties the ORIGINAL schema left optional
 * (strict mode made them required and nullable). Walks `value` beside the original schema.
 */
export function restoreOptionalNulls(value: unknown, original: JSONSchema): { value: unknown; changed: boolean } {
  const state = { changed: false };
  const out = restore(value, original, original, state, 0);
  return { value: out, changed: state.changed };
}

function restore(value: unknown, node: unknown, root: JSONSchema, state: { changed: boolean }, guard: number): unknown {
  const schema = resolve(node, root);
  if (!schema || guard > 64) return value;
  if (Array.isArray(value)) {
    const items = schema.items;
    if (typeof items !== "object" || items === null || Array.isArray(items)) return value;
    return value.map((v) => restore(v, items, root, state, guard + 1));
  }
  if (typeof value !== "object" || value === null) return value;
  const obj = value as Record<string, unknown>;
  const props = schema.properties;
  if (typeof props === "object" && props !== null) {
    const properties = props as Record<string, unknown>;
    const required = new Set(Array.isArray(schema.required) ? (schema.required as unknown[]) : []);
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(obj)) {
      // define(), not out[k] = ...: a "__proto__" key the model wrote stays an own
      // property instead of becoming the object's prototype (and vanishing from the JSON).
      if (!Object.hasOwn(properties, k)) {
        define(out, k, v);
      } else if (v === null && !required.has(k)) {
        state.changed = true;
      } else {
        define(out, k, restore(v, properties[k], root, state, guard + 1));
      }
    }
    return out;
  }
  const branches = (schema.anyOf ?? schema.oneOf) as unknown[] | undefined;
  if (Array.isArray(branches)) {
    // The branch that can hold every key the model wrote.
    const keys = Object.keys(obj);
    for (const b of branches) {
      const s = resolve(b, root);
      const bp = s?.properties;
      if (typeof bp === "object" && bp !== null && keys.every((k) => Object.hasOwn(bp, k))) {
        return restore(obj, s, root, state, guard + 1);
      }
    }
  }
  return value;
}

function define(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Follows local $refs ("#", "#/$defs/x", any JSON pointer into the root). */
function resolve(node: unknown, root: JSONSchema): JSONSchema | undefined {
  let current = node;
  for (let hops = 0; hops < 32; hops++) {
    if (typeof current !== "object" || current === null || Array.isArray(current)) return undefined;
    const ref = (current as JSONSchema).$ref;
    if (typeof ref !== "string") return current as JSONSchema;
    if (!ref.startsWith("#")) return undefined;
    current = resolvePointer(root, ref.slice(1));
  }
  return undefined;
}

/**
 * Rewrites a JSON text the model produced under a strict schema back to the original
 * schema's shape. Returns `text` unchanged when it is not JSON or nothing was removed.
 */
export function restoreJSONText(text: string, original: JSONSchema): string {
  // Arguments this deep are refused by the loop anyway; re-serialising them would overflow the stack.
  if (nestsDeeperThan(text, MAX_ARGUMENT_DEPTH)) return text;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return text;
  }
  const r = restoreOptionalNulls(parsed, original);
  return r.changed ? JSON.stringify(r.value) : text;
}
