// Which tool schemas Gemini cannot take. Tools go out as
// `functionDeclarations[].parametersJsonSchema`, a JSON Schema the API reads itself (not
// the OpenAPI-subset `parameters` field whose proto parser rejects every keyword it does
// not know: `additionalProperties`, `const`, `exclusiveMinimum`, `$schema`...). Keywords
// the API does not use are ignored there, so they are not rejected here. What the API
// does reject, and so what this check rejects (conservative: nothing else):
//
// 1. The root must describe an object: a JSON object whose `type`, when given, is
//    "object" ("The schema must describe an object where the properties are the
//    parameters to the function").
// 2. Every `$ref` must resolve inside the schema: "#", a "#/json/pointer", a "#anchor"
//    ($anchor) or an `$id` declared in the schema. Anything else (a URL, a missing
//    $defs entry) is answered 400 "reference to undefined schema at <path>".
// 3. A schema with `$ref` may carry only `description`, `default` and `$`-keywords
//    beside it: 400 "If a schema node has $ref set, then only description and default
//    can be set alongside it".
//
// Also checked, though not a schema: Gemini function names must start with a letter or an
// underscore (the registry allows a leading digit or dash; the API answers 400 "Invalid
// function name").
//
// Not rejected: recursive `$ref`s (the API unrolls them to a limited depth), type lists
// such as ["string", "null"], `anyOf` / `oneOf` / `allOf`, boolean subschemas.
import { isRecord, UnsupportedSchemaError } from "../../src/base/index.js";
import type { ToolSpec } from "../../src/conversation/index.js";
import { escapePointerToken, findInSchema, resolvePointer } from "../../src/schema/index.js";

export function checkToolSchemas(provider: string, tools: readonly ToolSpec[]): void {
  for (const tool of tools) {
    if (!/^[a-zA-Z_]/.test(tool.name)) {
      throw new UnsupportedSchemaError(provider, tool.name, "", "Gemini function names must start with a letter or an underscore");
    }
    const problem = schemaProblem(tool.parameters);
    if (problem) throw new UnsupportedSchemaError(provider, tool.name, problem.path, problem.reason);
  }
}

export function schemaProblem(root: unknown): { path: string; reason: string } | undefined {
  if (!isRecord(root)) return { path: "", reason: "the parameters schema must be a JSON object that describes an object" };
  if (root.type !== undefined && root.type !== "object") {
    return { path: "/type", reason: `the parameters schema must describe an object (type "object"), not ${JSON.stringify(root.type)}` };
  }
  const anchors = new Set<string>();
  const ids = new Set<string>();
  findInSchema(root, (node) => {
    if (typeof node.$anchor === "string") anchors.add(node.$anchor);
    if (typeof node.$id === "string") ids.add(node.$id);
    return undefined;
  });
  return findInSchema(root, (node, path) => {
    if (typeof node.$ref !== "string") return undefined;
    const extra = Object.keys(node).filter((k) => !k.startsWith("$") && k !== "description" && k !== "default");
    if (extra.length > 0) {
      return {
        path: `${path}/${escapePointerToken(extra[0]!)}`,
        reason: `a schema with $ref may only have description and default beside it, found ${extra.map((k) => JSON.stringify(k)).join(", ")}`,
      };
    }
    if (!resolves(root, node.$ref, anchors, ids)) {
      return { path: `${path}/$ref`, reason: `$ref ${JSON.stringify(node.$ref)} does not resolve inside the schema (only local references are followed)` };
    }
    return undefined;
  });
}

function resolves(root: Record<string, unknown>, ref: string, anchors: Set<string>, ids: Set<string>): boolean {
  if (ids.has(ref)) return true;
  if (!ref.startsWith("#")) return false;
  const fragment = ref.slice(1);
  if (fragment === "") return true;
  if (!fragment.startsWith("/")) return anchors.has(decodeURIComponent(fragment));
  const node = resolvePointer(root, fragment);
  return isRecord(node) || typeof node === "boolean";
}
