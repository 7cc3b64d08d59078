// Schemas in, JSON Schema out (valibot's through valibot-json-schema.ts), and validation
// without code generation (Workers forbid eval / new Function). A typed schema is validated
// by its own library (valibot, or any Standard Schema), which also applies its transforms; a
// raw JSON Schema is wrapped by jsonSchema() (json-schema.ts), which interprets it with
// @cfworker/json-schema. One validator per schema: checking valibot input against its JSON
// Schema form as well would do the work twice, and would put a JSON Schema interpreter in
// every bundle.
import type * as v from "valibot";
import { InvalidOptionsError, UnsupportedSchemaError, type ValidationIssue } from "./errors.js";
import { valibotToJSONSchema } from "./valibot-json-schema.js";

/** A JSON Schema document (draft-07 / 2020-12 subset the providers accept). */
export type JSONSchema = { [key: string]: unknown };

type AnyValibot = v.GenericSchema | v.GenericSchemaAsync;

/** A Standard Schema (https://standardschema.dev) that can also describe itself as JSON Schema. */
export interface StandardJSONSchemaLike<Output = unknown> {
  "~standard": {
    validate(value: unknown): StandardResult<Output> | Promise<StandardResult<Output>>;
    jsonSchema?: { input(options: { target: string }): Record<string, unknown> };
    types?: { input: unknown; output: Output };
  };
}

type StandardResult<Output> =
  | { value: Output; issues?: undefined }
  | { issues: readonly { message: string; path?: readonly unknown[] }[] };

/** The schema forms tool() and ask() accept. */
export type SchemaInput = AnyValibot | StandardJSONSchemaLike;

function isValibot(s: unknown): s is AnyValibot {
  return typeof s === "object" && s !== null && (s as { kind?: unknown }).kind === "schema" && "~run" in s;
}

/** True for the schema objects tool() and ask() take (not a raw JSON Schema). */
export function isSchemaInput(s: unknown): s is SchemaInput {
  return isValibot(s) || (typeof s === "object" && s !== null && typeof (s as StandardJSONSchemaLike)["~standard"]?.validate === "function");
}

/**
 * Converts a valibot (or Standard JSON Schema) schema to a plain JSON Schema without `$schema`.
 * `owner` names the tool (or "ask()") in the error for a schema with no JSON Schema form.
 */
export function toJSONSchema(schema: SchemaInput, owner = "the schema"): JSONSchema {
  let out: Record<string, unknown>;
  if (isValibot(schema)) {
    // Actions (transforms, custom checks) with no JSON Schema form are ignored: valibot still
    // enforces them when it validates. A *schema* with none (v.date(), v.custom(), v.map()...)
    // is different: it would be sent as {}, which no model can fill, so the tool could never
    // run. The converter reports the first one with its JSON Pointer; it is refused.
    const converted = valibotToJSONSchema(schema);
    const bad = converted.unconvertible;
    if (bad) {
      const prop = /\/properties\/([^/]+)(?!.*\/properties\/)/.exec(bad.path)?.[1];
      throw new UnsupportedSchemaError(
        "toolloop",
        owner,
        bad.path,
        `${prop ? `property "${prop}" is` : "it is"} a valibot ${bad.type}() schema, which has no JSON Schema form, ` +
          "so the model would be sent {} and could never fill it; describe it with JSON types instead " +
          "(e.g. v.pipe(v.string(), v.isoDate()) for a date)",
      );
    }
    out = converted.schema;
  } else if (schema["~standard"]?.jsonSchema) {
    out = schema["~standard"].jsonSchema.input({ target: "draft-07" });
  } else {
    throw new InvalidOptionsError("expected a valibot schema, or a Standard Schema with JSON Schema support (wrap a raw JSON Schema with jsonSchema())");
  }
  const { $schema: _drop, ...rest } = out;
  return rest;
}

export type ValidateResult = { ok: true; value: unknown } | { ok: false; issues: ValidationIssue[] };
export type ValidateFn = (value: unknown) => ValidateResult | Promise<ValidateResult>;

/**
 * The schema's own validator, as a ValidateFn, through Standard Schema. A valibot schema is
 * one too: its `~standard.validate` is `safeParse` under valibot's global config (async for
 * an async schema), so no valibot parse function is bundled. Sync validation stays sync.
 */
export function compileValidator(schema: SchemaInput): ValidateFn {
  const std = (schema as StandardJSONSchemaLike)["~standard"];
  return (value) => {
    const r = std.validate(value);
    return typeof (r as PromiseLike<unknown>).then === "function" ? Promise.resolve(r).then(fromResult) : fromResult(r as StandardResult<unknown>);
  };
}

function fromResult(r: StandardResult<unknown>): ValidateResult {
  return r.issues ? failed(r.issues) : { ok: true, value: r.value };
}

/** Issues as ValidationIssues: a JSON Pointer-like path (valibot's path items and Standard Schema's keys alike). */
function failed(issues: readonly { message: string; path?: readonly unknown[] | undefined }[]): ValidateResult {
  return { ok: false, issues: issues.map((i) => ({ path: "/" + (i.path ?? []).map(pathKey).join("/"), message: i.message })) };
}

function pathKey(p: unknown): string {
  return String(typeof p === "object" && p !== null && "key" in p ? (p as { key: unknown }).key : p);
}
