// jsonSchema(): a raw JSON Schema as a Standard Schema, validated by @cfworker/json-schema
// (an interpreter: no code generation, so it runs in Workers). jsonTool(), ask() with a
// raw schema and the MCP server use it; a program that only uses valibot never loads it.
import { Validator } from "@cfworker/json-schema";
import type { ValidationIssue } from "./errors.js";
import type { JSONSchema, StandardJSONSchemaLike } from "./schema.js";
import { unescapePointerToken } from "./schema-walk.js";

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
