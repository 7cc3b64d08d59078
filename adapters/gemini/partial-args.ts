// Vertex AI can stream a function call's arguments (streamFunctionCallArguments): a part
// `{functionCall: {name, willContinue: true}}` opens the call, parts carrying
// `functionCall.partialArgs: [{jsonPath, stringValue | numberValue | boolValue | nullValue,
// willContinue}]` fill it in, and an empty `{functionCall: {}}` closes it. A string value
// may be split across fragments of the same jsonPath: a fragment with `willContinue: true`
// is continued by the next fragment for that path. This module assembles the fragments
// into the plain `args` object the Gemini API (generativelanguage) sends in one piece.
import { isRecord } from "../../src/base/index.js";
import type { PartialArg } from "./wire.js";

type Segment = string | number;

export interface ArgsAssembler {
  add(fragments: readonly PartialArg[]): void;
  /** The arguments assembled so far (a fresh object each call). */
  value(): Record<string, unknown>;
}

export function createArgsAssembler(): ArgsAssembler {
  const args: Record<string, unknown> = {};
  // jsonPath → the string being continued (only while its last fragment said willContinue)
  const open = new Map<string, string>();
  return {
    add(fragments) {
      for (const f of fragments) {
        if (!isRecord(f) || typeof f.jsonPath !== "string") continue;
        const path = parseJsonPath(f.jsonPath);
        if (!path) continue;
        let value: unknown;
        if (typeof f.stringValue === "string") {
          value = (open.get(f.jsonPath) ?? "") + f.stringValue;
          if (f.willContinue) open.set(f.jsonPath, value as string);
          else open.delete(f.jsonPath);
        } else if (typeof f.numberValue === "number") value = f.numberValue;
        else if (typeof f.boolValue === "boolean") value = f.boolValue;
        else if ("nullValue" in f) value = null;
        else continue;
        setAt(args, path, value);
      }
    },
    value: () => structuredClone(args),
  };
}

/** `$.a.b[0]['c d']` → ["a", "b", 0, "c d"]; undefined when it is not a simple path. */
export function parseJsonPath(path: string): Segment[] | undefined {
  if (!path.startsWith("$")) return undefined;
  const out: Segment[] = [];
  let i = 1;
  while (i < path.length) {
    if (path[i] === ".") {
      const m = /^[^.[\]]+/.exec(path.slice(i + 1));
      if (!m) return undefined;
      out.push(m[0]);
      i += 1 + m[0].length;
    } else if (path[i] === "[") {
      const rest = path.slice(i);
      const index = /^\[(\d+)\]/.exec(rest);
      const quoted = /^\[(['"])((?:\\.|(?!\1).)*)\1\]/.exec(rest);
      if (index) {
        out.push(Number(index[1]));
        i += index[0].length;
      } else if (quoted) {
        out.push(quoted[2]!.replace(/\\(.)/g, "$1"));
        i += quoted[0].length;
      } else return undefined;
    } else return undefined;
  }
  return out.length ? out : undefined;
}

/**
 * Sets a value at a path the server chose. Keys are data: only own properties are followed
 * and every write defines an own property, so a path like `$.__proto__.x` or
 * `$.constructor.prototype.x` builds plain nested objects instead of reaching a prototype.
 */
function setAt(root: Record<string, unknown>, path: Segment[], value: unknown): void {
  let node: Record<string, unknown> | unknown[] = root;
  for (let k = 0; k < path.length - 1; k++) {
    const key = path[k]!;
    const nextIsIndex = typeof path[k + 1] === "number";
    const current: unknown = Object.hasOwn(node, key) ? (node as Record<string | number, unknown>)[key] : undefined;
    if (typeof current !== "object" || current === null) {
      const created = nextIsIndex ? [] : {};
      define(node, key, created);
      node = created;
    } else node = current as Record<string, unknown> | unknown[];
  }
  define(node, path[path.length - 1]!, value);
}

function define(node: object, key: Segment, value: unknown): void {
  Object.defineProperty(node, key, { value, enumerable: true, writable: true, configurable: true });
}
