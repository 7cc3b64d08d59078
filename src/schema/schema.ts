// Schemas in, JSON Schema out, and validation without code generation (Workers forbid eval /
// new Function). A valibot schema is converted by @valibot/to-json-schema, any other typed
// schema by its own library through Standard JSON Schema (`~standard.jsonSchema`: zod 4.2+,
// arktype, valibot wrapped by toStandardJsonSchema). A typed schema is validated by its own
// library (`~standard.validate`), which also applies its transforms; a raw JSON Schema is
// wrapped by jsonSchema() (json-schema.ts), which interprets it with @cfworker/json-schema.
// One validator per schema: checking valibot input against its JSON Schema form as well would
// do the work twice, and would put a JSON Schema interpreter in every bundle.
import { type ConversionConfig, type JsonSchema, toJsonSchema } from "@valibot/to-json-schema";
import type * as v from "valibot";
import { describeError, InvalidOptionsError, UnsupportedSchemaError, type ValidationIssue } from "../base/index.js";
import { findInSchema } from "./schema-walk.js";

/** A JSON Schema document (draft-07 / 2020-12 subset the providers accept). */
export type JSONSchema = { [key: string]: unknown };

type AnyValibot = v.GenericSchema | v.GenericSchemaAsync;

/**
 * A Standard Schema (https://standardschema.dev) that can also describe itself as JSON
 * Schema (Standard JSON Schema): what zod 4.2+, arktype and valibot's toStandardJsonSchema()
 * give. Only the members toolloop calls are spelled out.
 */
export interface StandardJSONSchemaLike<Output = unknown> {
  "~standard": {
    validate(value: unknown): StandardResult<Output> | Promise<StandardResult<Output>>;
    /** The library's name ("zod", "valibot", "arktype"). */
    // Optional members say `| undefined` as well: the libraries declare them so, and a user's
    // exactOptionalPropertyTypes would otherwise refuse a zod schema that runs fine.
    vendor?: string | undefined;
    jsonSchema?: { input(options: { target: string; libraryOptions?: Record<string, unknown> }): Record<string, unknown> } | undefined;
    types?: { input: unknown; output: Output } | undefined;
  };
}

type StandardResult<Output> = { value: Output; issues?: undefined } | { issues: readonly { message: string; path?: readonly unknown[] | undefined }[] };

/** The schema forms tool() and ask() accept. */
export type SchemaInput = AnyValibot | StandardJSONSchemaLike;

function isValibot(s: unknown): s is AnyValibot {
  return typeof s === "object" && s !== null && (s as { kind?: unknown }).kind === "schema" && "~run" in s;
}

/** True for the schema objects tool() and ask() take (not a raw JSON Schema). */
export function isSchemaInput(s: unknown): s is SchemaInput {
  return isValibot(s) || (typeof s === "object" && s !== null && typeof (s as StandardJSONSchemaLike)["~standard"]?.validate === "function");
}

/** Marks a schema the converter could not describe (a symbol: never a user's key, never serialised). */
const UNCONVERTIBLE = Symbol("unconvertible");

/**
 * How valibot schemas are converted:
 * - typeMode "input": the model writes a pipe's input side (what comes before a transform).
 * - errorMode "ignore": an *action* with no JSON Schema form (check(), trim(), transform())
 *   is left out, not an error: valibot still enforces it when it validates. Not "warn",
 *   which would write to the console of every app.
 * - overrideSchema: a *schema* with none (v.date(), v.custom(), v.map()...) would be sent as
 *   {}, which no model can fill, so the tool could never run. It is marked here and refused
 *   below with its JSON Pointer (the library reports no path).
 * - target: the library's default, draft-07. What valibot tools send stays byte for byte
 *   what 0.2 sent (test/core/valibot-json-schema.test.ts); draft 2020-12 would differ only
 *   in tuples (prefixItems).
 */
const VALIBOT: ConversionConfig = {
  typeMode: "input",
  errorMode: "ignore",
  overrideSchema: (ctx) => (ctx.errors ? ({ [UNCONVERTIBLE]: ctx.valibotSchema.type } as unknown as JsonSchema) : undefined),
};

/**
 * Converts a valibot (or Standard JSON Schema) schema to a plain JSON Schema without `$schema`.
 * `owner` names the tool (or "ask()") in the error for a schema with no JSON Schema form.
 */
export function toJSONSchema(schema: SchemaInput, owner = "the schema"): JSONSchema {
  const out = isValibot(schema) ? (toJsonSchema(schema as v.GenericSchema, VALIBOT) as Record<string, unknown>) : fromStandard(schema, owner);
  const bad = findInSchema(out, (node, path) => (UNCONVERTIBLE in node ? { type: String(node[UNCONVERTIBLE as never]), path } : undefined));
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
  // The providers take no `$schema` (and the draft is ours to know, not the model's).
  const { $schema: _drop, ...rest } = out;
  return rest;
}

/**
 * A Standard JSON Schema's input side, from its own library, in draft 2020-12: the draft the
 * spec asks every library to support and the one the providers document. A library that
 * cannot describe the schema throws (zod for z.date(), a transform...): that is the same
 * refusal as a valibot v.date(), typed.
 */
function fromStandard(schema: StandardJSONSchemaLike, owner: string): Record<string, unknown> {
  const std = schema["~standard"];
  if (typeof std?.jsonSchema?.input !== "function") {
    throw new InvalidOptionsError(
      `${owner}: expected a valibot schema, or a Standard Schema with JSON Schema support (~standard.jsonSchema; zod 4.2+, or valibot's toStandardJsonSchema()); wrap a raw JSON Schema with jsonSchema()`,
    );
  }
  let out: unknown;
  try {
    // libraryOptions is the spec's slot for a library's own options: valibot through
    // toStandardJsonSchema() takes the ones a plain valibot schema is converted with.
    out = std.jsonSchema.input(std.vendor === "valibot" ? { target: "draft-2020-12", libraryOptions: { ...VALIBOT } } : { target: "draft-2020-12" });
  } catch (err) {
    throw new UnsupportedSchemaError(
      "toolloop",
      owner,
      "",
      `its schema library (${std.vendor ?? "unknown"}) cannot describe it as JSON Schema: ${describeError(err)}`,
    );
  }
  if (typeof out !== "object" || out === null || Array.isArray(out)) {
    throw new UnsupportedSchemaError("toolloop", owner, "", `its schema library (${std.vendor ?? "unknown"}) gave no JSON Schema object`);
  }
  return out as Record<string, unknown>;
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
